/* Flow utilities: .flo files (round trips, layout, malformed input, failed
 * writes), and clv_flow_to_color, clv_flow_eval and clv_warp against the C
 * references in tests/ref/ref_flow.c, plus hand-computed values and a photo. */
#include <dirent.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ref/ref.h"
#include "ref/ref_flow.h"
#include "testutil.h"

static clv_context *ctx;
static int passed;
static uint64_t seed = 7000;
static char tmpdir[] = "/tmp/clv_flowutil_XXXXXX";

#define PASS_IF(cond, ...)                                                               \
    do {                                                                                 \
        int ok_ = (cond);                                                                \
        CHECK(ok_, __VA_ARGS__);                                                         \
        passed += ok_;                                                                   \
    } while (0)

/* ---- helpers ---- */

static double uniform(uint64_t *st, double lo, double hi)
{
    return lo + (hi - lo) * ((double)(test_rand(st) >> 11) / 9007199254740992.0);
}

static const char *tmp_path(const char *name)
{
    static char buf[2][512];
    static int which;
    which ^= 1;
    snprintf(buf[which], sizeof buf[which], "%s/%s", tmpdir, name);
    return buf[which];
}

static void write_bytes(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    REQUIRE(f != NULL, "cannot create %s: %s", path, strerror(errno));
    REQUIRE(fwrite(data, 1, n, f) == n, "cannot write %s", path);
    REQUIRE(fclose(f) == 0, "cannot close %s", path);
}

static unsigned char *read_bytes(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    REQUIRE(f != NULL, "cannot open %s: %s", path, strerror(errno));
    REQUIRE(fseek(f, 0, SEEK_END) == 0, "seek");
    long len = ftell(f);
    REQUIRE(len >= 0 && fseek(f, 0, SEEK_SET) == 0, "tell");
    unsigned char *buf = th_malloc((size_t)len + 1);
    REQUIRE(fread(buf, 1, (size_t)len, f) == (size_t)len, "read %s", path);
    fclose(f);
    *n = (size_t)len;
    return buf;
}

static void put_le32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}

static uint32_t get_le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint32_t float_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float bits_float(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* Header bytes of a .flo file with the given tag and sizes. */
static void flo_header(unsigned char *h, const char tag[4], int32_t w, int32_t hh)
{
    memcpy(h, tag, 4);
    put_le32(h + 4, (uint32_t)w);
    put_le32(h + 8, (uint32_t)hh);
}

/* Names in tmpdir other than the expected ones (temporary leftovers). */
static int stray_files(const char *const *expected, int n_expected)
{
    DIR *d = opendir(tmpdir);
    REQUIRE(d != NULL, "opendir %s", tmpdir);
    int stray = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        int known = 0;
        for (int i = 0; i < n_expected; i++)
            known |= strcmp(e->d_name, expected[i]) == 0;
        if (!known) {
            printf("     stray file %s/%s\n", tmpdir, e->d_name);
            stray++;
        }
    }
    closedir(d);
    return stray;
}

static void remove_tmpdir(void)
{
    DIR *d = opendir(tmpdir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            unlink(tmp_path(e->d_name));
    closedir(d);
    rmdir(tmpdir);
}

/* Random flow: u, v uniform in [-scale, scale]; a fraction `unknown` of the
 * pixels gets an unknown vector (1e9, -2e9, NaN, +-Inf in u or v). With
 * quantum > 0 values are multiples of it. */
static float *random_flow(int w, int h, double scale, double unknown, double quantum,
                          uint64_t s)
{
    uint64_t st = s * 0x9E3779B97F4A7C15ull + 11;
    float *f = th_malloc((size_t)w * h * 2 * sizeof(float));
    static const float bad[] = {1e9f, -2e9f, NAN, INFINITY, -INFINITY, 3.5e9f};
    for (size_t i = 0; i < (size_t)w * h; i++) {
        for (int c = 0; c < 2; c++) {
            double v = uniform(&st, -scale, scale);
            if (quantum > 0)
                v = floor(v / quantum + 0.5) * quantum;
            f[2 * i + c] = (float)v;
        }
        if (unknown > 0 && uniform(&st, 0, 1) < unknown)
            f[2 * i + (test_rand(&st) & 1)] = bad[test_rand(&st) % 6];
    }
    return f;
}

/* ---- .flo files ---- */

static void flo_round_trip(int w, int h, size_t pad)
{
    clv_host_image img = {w, h, 2, CLV_F32, (size_t)w * 8 + pad, NULL};
    unsigned char *data = th_malloc(img.stride * h);
    memset(data, 0xEE, img.stride * h);
    uint64_t st = seed++;
    static const uint32_t specials[] = {0x7fc12345u /* NaN with payload */, 0x80000000u /* -0 */,
                                        0x7f800000u, 0xff800000u, 0x00000001u /* denormal */,
                                        0x7f7fffffu, 0x4e6e6b28u /* 1e9 */, 0xffc00000u};
    for (int y = 0; y < h; y++)
        for (int i = 0; i < 2 * w; i++) {
            uint32_t r = (uint32_t)test_rand(&st);
            float v = (r & 7) == 0 ? bits_float(specials[(r >> 3) % 8])
                                   : (float)uniform(&st, -100.0, 100.0);
            memcpy(data + (size_t)y * img.stride + 4 * (size_t)i, &v, 4);
        }
    img.data = data;
    char name[64];
    snprintf(name, sizeof name, "rt_%dx%d.flo", w, h);
    const char *path = tmp_path(name);
    clv_status s = clv_flo_write(path, &img);
    PASS_IF(s == CLV_OK, "flo write %dx%d: %s: %s", w, h, clv_status_string(s),
            clv_io_last_error());
    clv_host_image back;
    s = clv_flo_read(path, &back);
    PASS_IF(s == CLV_OK, "flo read %dx%d: %s: %s", w, h, clv_status_string(s),
            clv_io_last_error());
    if (s == CLV_OK) {
        int same = back.width == w && back.height == h && back.channels == 2 &&
                   back.type == CLV_F32 && back.stride == (size_t)w * 8;
        for (int y = 0; same && y < h; y++)
            same = memcmp((unsigned char *)back.data + (size_t)y * back.stride,
                          data + (size_t)y * img.stride, (size_t)w * 8) == 0;
        PASS_IF(same, "flo %dx%d (pad %zu): round trip is not bit-exact", w, h, pad);
        printf("%s flo round trip %dx%d%s\n", same ? "ok  " : "FAIL", w, h,
               pad ? " (padded stride)" : "");
        size_t n = 0;
        unsigned char *file = read_bytes(path, &n);
        PASS_IF(n == 12 + (size_t)w * h * 8, "flo %dx%d: file has %zu bytes", w, h, n);
        free(file);
    }
    clv_host_image_free(&back);
    unlink(path);
    free(data);
}

/* The byte layout, independent of the host's byte order. */
static void flo_layout(void)
{
    float px[6] = {1.5f, -2.25f, 0.0f, 3.0f, -0.125f, 1e9f}; /* 3 x 1 */
    clv_host_image img = {3, 1, 2, CLV_F32, 24, px};
    const char *path = tmp_path("layout.flo");
    clv_status s = clv_flo_write(path, &img);
    PASS_IF(s == CLV_OK, "layout write: %s", clv_io_last_error());
    size_t n = 0;
    unsigned char *b = read_bytes(path, &n);
    int ok = n == 12 + 24 && memcmp(b, "PIEH", 4) == 0 &&
             bits_float(get_le32(b)) == 202021.25f && get_le32(b + 4) == 3 &&
             get_le32(b + 8) == 1;
    for (int i = 0; ok && i < 6; i++)
        ok = get_le32(b + 12 + 4 * i) == float_bits(px[i]);
    PASS_IF(ok, "flo layout: tag/size/little-endian floats wrong");
    printf("%s flo byte layout (\"PIEH\" = 202021.25f, LE int32 sizes, LE u,v)\n",
           ok ? "ok  " : "FAIL");
    free(b);

    /* A file made by hand (2 x 2, trailing bytes ignored) reads as written. */
    unsigned char file[12 + 32 + 5];
    flo_header(file, "PIEH", 2, 2);
    for (int i = 0; i < 8; i++)
        put_le32(file + 12 + 4 * i, float_bits(0.5f * (float)i - 1.0f));
    memset(file + 44, 0x33, 5);
    path = tmp_path("hand.flo");
    write_bytes(path, file, sizeof file);
    clv_host_image in;
    s = clv_flo_read(path, &in);
    ok = s == CLV_OK && in.width == 2 && in.height == 2 && in.channels == 2;
    for (int i = 0; ok && i < 8; i++)
        ok = ((const float *)in.data)[i] == 0.5f * (float)i - 1.0f;
    PASS_IF(ok, "hand-made flo: %s %s", clv_status_string(s), clv_io_last_error());
    printf("%s flo hand-made 2x2 file\n", ok ? "ok  " : "FAIL");
    clv_host_image_free(&in);
    unlink(path);
    unlink(tmp_path("layout.flo"));
}

static void expect_read_error(const char *name, const void *bytes, size_t n, clv_status want,
                              const char *what)
{
    const char *path = tmp_path(name);
    if (bytes)
        write_bytes(path, bytes, n);
    clv_host_image img;
    memset(&img, 0x5A, sizeof img);
    clv_status s = clv_flo_read(path, &img);
    const char *msg = clv_io_last_error();
    int ok = s == want && img.data == NULL && img.width == 0 && strstr(msg, path) != NULL;
    PASS_IF(ok, "%s: got %s (want %s), data %p, message \"%s\"", what, clv_status_string(s),
            clv_status_string(want), img.data, msg);
    printf("%s flo read %s -> %s: \"%s\"\n", ok ? "ok  " : "FAIL", what, clv_status_string(s),
           msg);
    if (s == CLV_OK)
        clv_host_image_free(&img);
    unlink(path);
}

static void flo_bad_files(void)
{
    unsigned char buf[256];
    expect_read_error("empty.flo", "", 0, CLV_ERROR_FORMAT, "empty file");
    static const unsigned char png[16] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n',
                                          0, 0, 0, 13, 'I', 'H', 'D', 'R'};
    expect_read_error("garbage.flo", png, sizeof png, CLV_ERROR_FORMAT, "a PNG signature");
    memset(buf, 'x', sizeof buf);
    expect_read_error("text.flo", buf, sizeof buf, CLV_ERROR_FORMAT, "text garbage");

    flo_header(buf, "PIEX", 2, 2);
    memset(buf + 12, 0, 32);
    expect_read_error("tag.flo", buf, 44, CLV_ERROR_FORMAT, "wrong tag");
    /* 202021.25 written big-endian is not the tag either */
    flo_header(buf, "HEIP", 2, 2);
    expect_read_error("betag.flo", buf, 44, CLV_ERROR_FORMAT, "byte-swapped tag");
    expect_read_error("short_tag.flo", "PIE", 3, CLV_ERROR_FORMAT, "3-byte file");
    flo_header(buf, "PIEH", 2, 2);
    expect_read_error("short_hdr.flo", buf, 9, CLV_ERROR_FORMAT, "truncated header");
    expect_read_error("short_data.flo", buf, 43, CLV_ERROR_FORMAT, "data 1 byte short");
    expect_read_error("no_data.flo", buf, 12, CLV_ERROR_FORMAT, "header only");
    flo_header(buf, "PIEH", 0, 5);
    expect_read_error("zero.flo", buf, 12, CLV_ERROR_FORMAT, "width 0");
    flo_header(buf, "PIEH", 5, -3);
    expect_read_error("neg.flo", buf, 12, CLV_ERROR_FORMAT, "height -3");
    flo_header(buf, "PIEH", INT32_MIN, INT32_MIN);
    expect_read_error("min.flo", buf, 12, CLV_ERROR_FORMAT, "INT32_MIN size");
    flo_header(buf, "PIEH", INT32_MAX, INT32_MAX);
    expect_read_error("max.flo", buf, 12, CLV_ERROR_UNSUPPORTED, "INT32_MAX size");
    flo_header(buf, "PIEH", 100000, 2);
    expect_read_error("wide.flo", buf, 12, CLV_ERROR_UNSUPPORTED, "width 100000");
    flo_header(buf, "PIEH", 30000, 30000);
    expect_read_error("huge.flo", buf, 12, CLV_ERROR_INVALID_ARGUMENT,
                      "30000x30000 (over the pixel limit)");
    /* Within the limit but far longer than the file: refused before the 2 GB
     * allocation. */
    flo_header(buf, "PIEH", 16000, 16000);
    expect_read_error("big.flo", buf, 12 + 64, CLV_ERROR_FORMAT, "16000x16000 in 76 bytes");

    /* A lowered pixel limit applies to .flo too. */
    size_t old = clv_io_max_pixels();
    clv_io_set_max_pixels(100);
    {
        size_t n = 12 + 20 * 20 * 8;
        unsigned char *f = th_malloc(n);
        memset(f, 0, n);
        flo_header(f, "PIEH", 20, 20);
        expect_read_error("limit.flo", f, n, CLV_ERROR_INVALID_ARGUMENT,
                          "20x20 with the limit at 100 pixels");
        free(f);
    }
    clv_io_set_max_pixels(old);

    expect_read_error("missing.flo", NULL, 0, CLV_ERROR_IO, "missing file");

    clv_host_image img;
    clv_status s = clv_flo_read(NULL, &img);
    PASS_IF(s == CLV_ERROR_INVALID_ARGUMENT, "NULL path: %s", clv_status_string(s));
    s = clv_flo_read(tmp_path("x.flo"), NULL);
    PASS_IF(s == CLV_ERROR_INVALID_ARGUMENT, "NULL out: %s", clv_status_string(s));
}

static void expect_write_error(const char *path, const clv_host_image *img, clv_status want,
                               const char *what)
{
    clv_status s = clv_flo_write(path, img);
    const char *msg = clv_io_last_error();
    int ok = s == want && msg[0] != '\0' && (!path || !test_file_exists(path));
    PASS_IF(ok, "%s: got %s (want %s), message \"%s\", file %s", what, clv_status_string(s),
            clv_status_string(want), msg, path && test_file_exists(path) ? "exists" : "absent");
    printf("%s flo write %s -> %s: \"%s\"\n", ok ? "ok  " : "FAIL", what, clv_status_string(s),
           msg);
}

static void flo_bad_writes(void)
{
    float px[4 * 3 * 3];
    memset(px, 0, sizeof px);
    const char *path = tmp_path("bad.flo");
    clv_host_image img = {4, 3, 2, CLV_F32, 32, px};
    clv_host_image c3 = {4, 3, 3, CLV_F32, 48, px};
    clv_host_image c1 = {4, 3, 1, CLV_F32, 16, px};
    clv_host_image u8 = {4, 3, 2, CLV_U8, 8, px};
    clv_host_image nodata = {4, 3, 2, CLV_F32, 32, NULL};
    clv_host_image stride = {4, 3, 2, CLV_F32, 31, px};
    clv_host_image zero = {0, 3, 2, CLV_F32, 32, px};
    expect_write_error(path, &c3, CLV_ERROR_INVALID_ARGUMENT, "3 channels");
    expect_write_error(path, &c1, CLV_ERROR_INVALID_ARGUMENT, "1 channel");
    expect_write_error(path, &u8, CLV_ERROR_INVALID_ARGUMENT, "u8");
    expect_write_error(path, &nodata, CLV_ERROR_INVALID_ARGUMENT, "NULL data");
    expect_write_error(path, &stride, CLV_ERROR_INVALID_ARGUMENT, "stride < row");
    expect_write_error(path, &zero, CLV_ERROR_INVALID_ARGUMENT, "width 0");
    expect_write_error(path, NULL, CLV_ERROR_INVALID_ARGUMENT, "NULL image");
    expect_write_error(NULL, &img, CLV_ERROR_INVALID_ARGUMENT, "NULL path");
    expect_write_error(tmp_path("no/such/dir/x.flo"), &img, CLV_ERROR_IO,
                       "into a missing directory");

    /* A write that fails half-way (file size limit: EFBIG) over an existing
     * file leaves the old file as it was and no temporary file behind. */
    const char *keep = tmp_path("keep.flo");
    REQUIRE(clv_flo_write(keep, &img) == CLV_OK, "%s", clv_io_last_error());
    size_t n_before = 0;
    unsigned char *before = read_bytes(keep, &n_before);
    int w = 200, h = 100;
    clv_host_image big = {w, h, 2, CLV_F32, (size_t)w * 8, NULL};
    big.data = th_malloc(big.stride * h);
    memset(big.data, 0x41, big.stride * h);
    struct rlimit old_lim, lim;
    REQUIRE(getrlimit(RLIMIT_FSIZE, &old_lim) == 0, "getrlimit");
    void (*old_sig)(int) = signal(SIGXFSZ, SIG_IGN);
    lim = old_lim;
    lim.rlim_cur = 4096;
    REQUIRE(setrlimit(RLIMIT_FSIZE, &lim) == 0, "setrlimit");
    clv_status s = clv_flo_write(keep, &big);
    REQUIRE(setrlimit(RLIMIT_FSIZE, &old_lim) == 0, "setrlimit (restore)");
    signal(SIGXFSZ, old_sig);
    size_t n_after = 0;
    unsigned char *after = read_bytes(keep, &n_after);
    static const char *const expected[] = {"keep.flo"};
    int stray = stray_files(expected, 1);
    int ok = s == CLV_ERROR_IO && n_after == n_before && memcmp(before, after, n_before) == 0 &&
             stray == 0;
    PASS_IF(ok, "failed write: status %s, old file %s, %d stray files", clv_status_string(s),
            n_after == n_before && memcmp(before, after, n_before) == 0 ? "intact" : "changed",
            stray);
    printf("%s flo write failing half-way (EFBIG) -> %s: \"%s\"; old file intact, no temp left\n",
           ok ? "ok  " : "FAIL", clv_status_string(s), clv_io_last_error());
    free(before);
    free(after);
    free(big.data);
    unlink(keep);
    PASS_IF(stray_files(NULL, 0) == 0, "files left in %s", tmpdir);
}

static void flo_tests(void)
{
    static const int sizes[][2] = {{1, 1}, {7, 3}, {31, 17}, {1, 13}, {257, 1}, {101, 67}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        flo_round_trip(sizes[i][0], sizes[i][1], 0);
    flo_round_trip(13, 5, 20);
    flo_layout();
    flo_bad_files();
    flo_bad_writes();
}

/* ---- argument checks ---- */

/* ---- colour coding ---- */

static uint8_t *device_color(const float *flow, int w, int h, double max_mag)
{
    clv_image *f = th_upload(ctx, flow, w, h, 2, CLV_F32, 0);
    clv_image *rgb = th_poisoned(ctx, w, h, 3, CLV_U8);
    clv_status s = clv_flow_to_color(ctx, f, rgb, max_mag);
    uint8_t *got = NULL;
    if (s != CLV_OK)
        CHECK(0, "flow_to_color %dx%d: %s: %s", w, h, clv_status_string(s), clv_last_error(ctx));
    else
        got = th_download(ctx, rgb, 0, NULL);
    clv_image_release(f);
    clv_image_release(rgb);
    return got;
}

static void run_color(const float *flow, int w, int h, double max_mag, const char *tag)
{
    char label[160];
    snprintf(label, sizeof label, "flow_to_color %s %dx%d max %s", tag, w, h,
             max_mag > 0 ? "given" : "auto");
    uint8_t *got = device_color(flow, w, h, max_mag);
    if (!got)
        return;
    uint8_t *want = th_malloc((size_t)w * h * 3);
    ref_flow_to_color(flow, w, h, max_mag, want);
    size_t bad = ref_compare(got, want, w, h, 3, CLV_U8, REF_FILTER, label);
    /* Unknown flow is exactly black. */
    size_t black_bad = 0;
    for (size_t i = 0; i < (size_t)w * h; i++)
        if (!ref_flow_known(flow[2 * i], flow[2 * i + 1]) &&
            (got[3 * i] | got[3 * i + 1] | got[3 * i + 2]) != 0)
            black_bad++;
    PASS_IF(bad == 0, "%s: %zu values off", label, bad);
    PASS_IF(black_bad == 0, "%s: %zu unknown pixels not black", label, black_bad);
    free(got);
    free(want);
}

/* Colours worked out by hand from the wheel (max_magnitude 1 or auto). */
static void color_by_hand(void)
{
    /* u=1,v=0: a = -1, entry 0 = red. u=-1,v=0: a = 0, fk = 27, entry 27 =
     * CB ramp step 2 = (0, 255 - 510/11, 255) = (0, 209, 255). u=0,v=-1:
     * atan2(1, -0) = pi/2, a = 1/2, fk = 40.5: entries 40, 41 (BM steps 4, 5:
     * 78, 98) -> R = 88, G 0, B 255. u=0,v=1: a = -1/2, fk = 13.5: entries
     * 13, 14 (RY: 221, 238) -> (255, 229, 0). Zero flow: white. Magnitude 2
     * (r > 1): 0.75 * red = (191, 0, 0). Magnitude 0.5 at u>0: 1 - 0.5 *
     * (1 - c) = (255, 127, 127). Unknown: black. -0 for v at u>0: red too. */
    const float flow[] = {1, 0, -1, 0, 0, -1, 0, 1, 0, 0, 2, 0, 0.5f, 0, NAN, 0, 1, -0.0f};
    const uint8_t want[] = {255, 0, 0,   0,   209, 255, 88,  0, 255, 255, 229, 0,  255, 255,
                            255, 191, 0, 0, 255, 127, 127, 0, 0,   0,   255, 0,   0};
    const int n = 9;
    uint8_t *got = device_color(flow, n, 1, 1.0);
    if (!got)
        return;
    /* +-1: values like 88 = 255 * (78 + 98) / 2 / 255 are truncated from a
     * float that may land just below the integer. */
    int ok = 1;
    for (size_t i = 0; i < sizeof want; i++)
        ok &= abs((int)got[i] - (int)want[i]) <= 1;
    PASS_IF(ok, "hand-computed colours differ");
    printf("%s flow_to_color hand-computed colours:", ok ? "ok  " : "FAIL");
    for (int i = 0; i < n; i++)
        printf(" (%d,%d,%d)", got[3 * i], got[3 * i + 1], got[3 * i + 2]);
    printf("\n");
    free(got);

    /* Auto: the largest magnitude (2) becomes full colour, not darkened. */
    const float flow2[] = {2, 0, 1, 0, -0.5f, 0, 1e9f, 5};
    got = device_color(flow2, 4, 1, 0.0);
    if (got) {
        ok = got[0] == 255 && got[1] == 0 && got[2] == 0 && got[3] == 255 && got[4] == 127 &&
             got[5] == 127 && got[9] == 0 && got[10] == 0 && got[11] == 0;
        PASS_IF(ok, "auto maximum: (%d,%d,%d) (%d,%d,%d) unknown (%d,%d,%d)", got[0], got[1],
                got[2], got[3], got[4], got[5], got[9], got[10], got[11]);
        printf("%s flow_to_color auto maximum: largest vector full red, half-length pink\n",
               ok ? "ok  " : "FAIL");
        free(got);
    }

    /* The wheel's 55 entries as the reference builds them (spot checks). */
    int c[3], ok_w = 1;
    ref_flow_wheel(0, c);
    ok_w &= c[0] == 255 && c[1] == 0 && c[2] == 0;
    ref_flow_wheel(15, c);
    ok_w &= c[0] == 255 && c[1] == 255 && c[2] == 0;
    ref_flow_wheel(54, c);
    ok_w &= c[0] == 255 && c[1] == 0 && c[2] == 43;
    PASS_IF(ok_w, "reference wheel entries");
}

static void color_tests(void)
{
    color_by_hand();
    /* Zero field: white; all unknown: black. */
    float *zero = th_malloc(5 * 3 * 2 * sizeof(float));
    memset(zero, 0, 5 * 3 * 2 * sizeof(float));
    run_color(zero, 5, 3, 0.0, "zero field");
    for (int i = 0; i < 30; i++)
        zero[i] = i % 3 ? NAN : 1e9f;
    run_color(zero, 5, 3, 0.0, "all unknown");
    run_color(zero, 5, 3, 2.0, "all unknown");
    free(zero);

    static const int sizes[][2] = {{1, 1}, {7, 3}, {67, 45}, {640, 480}, {1023, 769}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        int w = sizes[i][0], h = sizes[i][1];
        float *f = random_flow(w, h, 4.0, 0.05, 0.0, seed++);
        run_color(f, w, h, 0.0, "random");
        run_color(f, w, h, 3.0, "random");
        run_color(f, w, h, 1.5, "random");
        free(f);
    }
    float *f = random_flow(331, 207, 300.0, 0.1, 0.0, seed++);
    run_color(f, 331, 207, 0.0, "large vectors");
    run_color(f, 331, 207, 1e-30, "tiny given maximum");
    free(f);
}

/* ---- evaluation ---- */

static int stats_match(const clv_flow_stats *got, const clv_flow_stats *want, double rel)
{
    double lim_e = rel * fmax(1.0, fabs(want->aee)), lim_a = rel * fmax(1.0, fabs(want->aae));
    return got->valid == want->valid && fabs(got->aee - want->aee) <= lim_e &&
           fabs(got->aae - want->aae) <= lim_a && got->r1 == want->r1 && got->r3 == want->r3 &&
           got->r5 == want->r5;
}

static void print_stats(const char *tag, const clv_flow_stats *s)
{
    printf("     %s: aee %.9g aae %.9g r1 %.6g r3 %.6g r5 %.6g valid %lld\n", tag, s->aee, s->aae,
           s->r1, s->r3, s->r5, (long long)s->valid);
}

static int device_eval(const float *est, const float *gt, int w, int h, clv_flow_stats *out)
{
    clv_image *e = th_upload(ctx, est, w, h, 2, CLV_F32, 0);
    clv_image *g = th_upload(ctx, gt, w, h, 2, CLV_F32, 0);
    clv_status s = clv_flow_eval(ctx, e, g, out);
    clv_image_release(e);
    clv_image_release(g);
    CHECK(s == CLV_OK, "flow_eval %dx%d: %s: %s", w, h, clv_status_string(s), clv_last_error(ctx));
    return s == CLV_OK;
}

static void run_eval(const float *est, const float *gt, int w, int h, const char *tag)
{
    clv_flow_stats got, want;
    if (!device_eval(est, gt, w, h, &got))
        return;
    ref_flow_eval(est, gt, w, h, &want);
    int ok = stats_match(&got, &want, 1e-4);
    PASS_IF(ok, "flow_eval %s %dx%d differs from the reference", tag, w, h);
    printf("%s flow_eval %s %dx%d: aee %.6g (rel err %.2g), aae %.6g (rel err %.2g), r1/r3/r5 "
           "%.4g/%.4g/%.4g, valid %lld\n",
           ok ? "ok  " : "FAIL", tag, w, h, got.aee,
           want.aee ? fabs(got.aee - want.aee) / want.aee : fabs(got.aee), got.aae,
           want.aae ? fabs(got.aae - want.aae) / want.aae : fabs(got.aae), got.r1, got.r3,
           got.r5, (long long)got.valid);
    if (!ok) {
        print_stats("got ", &got);
        print_stats("want", &want);
    }
}

static void eval_by_hand(void)
{
    static const struct {
        float ue, ve, ug, vg;
        double aee, aae;
        const char *what;
    } cases[] = {
        {1, 0, 0, 1, 1.4142135623730951, 60.0, "est (1,0) vs gt (0,1): acos(1/2)"},
        {2.5f, -1, 2.5f, -1, 0.0, 0.0, "est = gt"},
        {0, 0, 1, 0, 1.0, 45.0, "est (0,0) vs gt (1,0): acos(1/sqrt 2)"},
        {0, 0, 0, 0, 0.0, 0.0, "both zero"},
        {-1, 0, 1, 0, 2.0, 90.0, "est (-1,0) vs gt (1,0): acos(0)"},
        {3, 4, 0, 0, 5.0, 78.690067525979785, "est (3,4) vs gt (0,0): acos(1/sqrt 26)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const float e[2] = {cases[i].ue, cases[i].ve}, g[2] = {cases[i].ug, cases[i].vg};
        clv_flow_stats s;
        if (!device_eval(e, g, 1, 1, &s))
            continue;
        int ok = s.valid == 1 && fabs(s.aee - cases[i].aee) <= 1e-5 &&
                 fabs(s.aae - cases[i].aae) <= 1e-4 &&
                 s.r1 == (cases[i].aee > 1 ? 100.0 : 0.0) &&
                 s.r3 == (cases[i].aee > 3 ? 100.0 : 0.0) &&
                 s.r5 == 0.0;
        PASS_IF(ok, "%s: aee %.9g (want %.9g), aae %.9g (want %.9g)", cases[i].what, s.aee,
                cases[i].aee, s.aae, cases[i].aae);
        printf("%s flow_eval by hand, %s: aee %.7g, aae %.7g deg\n", ok ? "ok  " : "FAIL",
               cases[i].what, s.aee, s.aae);
    }

    /* Three pixels at once, and unknown ground truth ignored (1e9, -1e9,
     * NaN, Inf), whatever the estimate holds there. */
    const float e[] = {1, 0, 2.5f, -1, 0, 0, 7, 7, 7, 7, NAN, 3, 9, 9};
    const float g[] = {0, 1, 2.5f, -1, 1, 0, 1e9f, 0, 0, -1e9f, NAN, 0, 0, INFINITY};
    clv_flow_stats s;
    if (device_eval(e, g, 7, 1, &s)) {
        int ok = s.valid == 3 && fabs(s.aee - (sqrt(2.0) + 0 + 1) / 3) <= 1e-5 &&
                 fabs(s.aae - 35.0) <= 1e-4 && fabs(s.r1 - 100.0 / 3) <= 1e-9 && s.r3 == 0 &&
                 s.r5 == 0;
        PASS_IF(ok, "three known pixels of seven");
        print_stats("three known of seven", &s);
    }
    /* No known ground truth: zeros, valid 0. */
    const float gu[] = {NAN, 0, 1e9f, 0};
    if (device_eval(e, gu, 2, 1, &s)) {
        int ok = s.valid == 0 && s.aee == 0 && s.aae == 0 && s.r1 == 0 && s.r3 == 0 && s.r5 == 0;
        PASS_IF(ok, "all unknown: valid %lld", (long long)s.valid);
        printf("%s flow_eval with no known ground truth: all 0, valid 0\n", ok ? "ok  " : "FAIL");
    }
}

static void eval_tests(void)
{
    eval_by_hand();
    static const int sizes[][2] = {{1, 1}, {7, 3}, {67, 45}, {333, 1}, {1, 257},
                                   {640, 480}, {1023, 769}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        int w = sizes[i][0], h = sizes[i][1];
        /* Quantised to 1/64: endpoint errors are exact in float, so the
         * thresholds at 1, 3, 5 px are decided exactly; many land on them. */
        float *gt = random_flow(w, h, 8.0, 0.05, 1.0 / 64, seed++);
        float *est = random_flow(w, h, 8.0, 0.0, 1.0 / 64, seed++);
        for (size_t k = 0; k < (size_t)w * h * 2; k++)
            if (ref_flow_known(gt[k & ~(size_t)1], gt[k | 1]))
                est[k] = gt[k] + est[k] * (k % 3 == 0 ? 0.125f : 0.5f);
        run_eval(est, gt, w, h, "quantised");
        free(gt);
        free(est);
        /* Continuous values, independent fields. */
        gt = random_flow(w, h, 20.0, 0.03, 0.0, seed++);
        est = random_flow(w, h, 20.0, 0.0, 0.0, seed++);
        run_eval(est, gt, w, h, "random");
        free(gt);
        free(est);
    }
    /* Nearly equal large vectors (tiny angles): a plain float acos would be
     * off by ~1e-4 rad here, swamping the ~1e-5 rad angles. */
    int w = 201, h = 143;
    float *gt = random_flow(w, h, 60.0, 0.02, 0.0, seed++);
    float *est = random_flow(w, h, 1e-3, 0.0, 0.0, seed++);
    for (size_t k = 0; k < (size_t)w * h * 2; k++)
        est[k] += gt[k];
    run_eval(est, gt, w, h, "near-equal large vectors");
    free(gt);
    free(est);
}

/* ---- warping ---- */

static void run_warp(const void *src, int sw, int sh, int cn, clv_pixel_type type,
                     const float *flow, int w, int h, size_t pad, const char *tag)
{
    char label[200];
    snprintf(label, sizeof label, "warp %s %s c%d %dx%d -> %dx%d%s", tag,
             clv_pixel_type_name(type), cn, sw, sh, w, h, pad ? " (padded stride)" : "");
    clv_image *s = th_upload(ctx, src, sw, sh, cn, type, pad);
    clv_image *f = th_upload(ctx, flow, w, h, 2, CLV_F32, pad);
    clv_image *d = th_poisoned(ctx, w, h, cn, type);
    clv_status st = clv_warp(ctx, s, f, d);
    if (st != CLV_OK) {
        CHECK(0, "%s: %s: %s", label, clv_status_string(st), clv_last_error(ctx));
    } else {
        void *want = th_malloc(th_image_bytes(w, h, cn, type));
        ref_warp(src, sw, sh, cn, type, flow, w, h, want);
        passed += th_check_output(ctx, d, want, pad, REF_FILTER, label);
        free(want);
    }
    clv_image_release(s);
    clv_image_release(f);
    clv_image_release(d);
}

static void warp_random(int sw, int sh, int w, int h, int cn, clv_pixel_type type, double reach,
                        size_t pad)
{
    void *src = th_random_pixels(sw, sh, cn, type, seed++);
    /* Displacements up to `reach` times the larger side: many point outside. */
    double scale = reach * (sw > sh ? sw : sh);
    float *flow = random_flow(w, h, scale, 0.03, 0.0, seed++);
    run_warp(src, sw, sh, cn, type, flow, w, h, pad, "random");
    free(flow);
    free(src);
}

static void warp_tests(void)
{
    static const clv_pixel_type types[] = {CLV_U8, CLV_U16, CLV_F32};
    static const int sizes[][2] = {{1, 1}, {7, 3}, {31, 17}, {67, 45}, {1, 9}, {300, 1}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        for (int t = 0; t < 3; t++)
            for (int cn = 1; cn <= 4; cn++)
                warp_random(sizes[i][0], sizes[i][1], sizes[i][0], sizes[i][1], cn, types[t],
                            i % 2 ? 1.5 : 0.3, 0);
    /* Small sub-pixel flows (mostly inside), a source of another size, padded
     * host strides, a larger image. */
    warp_random(67, 45, 67, 45, 3, CLV_U8, 0.02, 0);
    warp_random(40, 23, 67, 45, 4, CLV_F32, 0.5, 0);
    warp_random(67, 45, 13, 11, 2, CLV_U16, 0.5, 0);
    warp_random(67, 45, 67, 45, 3, CLV_F32, 0.1, 13);
    warp_random(1021, 767, 1021, 767, 3, CLV_U8, 0.05, 0);
    warp_random(1021, 767, 1021, 767, 1, CLV_F32, 0.05, 0);
}

/* chelsea.png translated by an integer: exact pixels (the border replicated
 * where the source falls outside), then a sub-pixel shift against the
 * reference. */
static void warp_photo(void)
{
    void *px = NULL;
    int w, h, cn;
    int r = th_load_photo("chelsea.png", CLV_U8, &px, &w, &h, &cn);
    CHECK(r >= 0, "chelsea.png exists but could not be read");
    if (r <= 0)
        return;
    float *flow = th_malloc((size_t)w * h * 2 * sizeof(float));
    for (size_t i = 0; i < (size_t)w * h; i++) {
        flow[2 * i] = 3.0f;
        flow[2 * i + 1] = -2.0f;
    }
    clv_image *s = th_upload(ctx, px, w, h, cn, CLV_U8, 0);
    clv_image *f = th_upload(ctx, flow, w, h, 2, CLV_F32, 0);
    clv_image *d = th_poisoned(ctx, w, h, cn, CLV_U8);
    REQUIRE_OK(ctx, clv_warp(ctx, s, f, d));
    uint8_t *got = th_download(ctx, d, 0, NULL);
    size_t bad_in = 0, bad_border = 0, interior = 0;
    const uint8_t *src = px;
    for (int y = 0; got && y < h; y++)
        for (int x = 0; x < w; x++) {
            int sx = x + 3 < w ? x + 3 : w - 1, sy = y - 2 >= 0 ? y - 2 : 0;
            int inside = x + 3 < w && y - 2 >= 0;
            interior += inside;
            if (memcmp(got + ((size_t)y * w + x) * cn, src + ((size_t)sy * w + sx) * cn,
                       (size_t)cn) != 0) {
                if (inside)
                    bad_in++;
                else
                    bad_border++;
            }
        }
    PASS_IF(got && bad_in == 0 && bad_border == 0,
            "chelsea shifted by (3, -2): %zu interior, %zu border pixels differ", bad_in,
            bad_border);
    printf("%s warp chelsea %dx%d c%d by (3, -2): %zu interior pixels exact, border replicated\n",
           got && !bad_in && !bad_border ? "ok  " : "FAIL", w, h, cn, interior);
    free(got);
    clv_image_release(s);
    clv_image_release(f);
    clv_image_release(d);

    /* A smooth sub-pixel field (a slow rotation plus a shift). */
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            size_t i = (size_t)y * w + x;
            double a = 0.02, cx = w / 2.0, cy = h / 2.0;
            flow[2 * i] = (float)((cos(a) - 1) * (x - cx) - sin(a) * (y - cy) + 0.37);
            flow[2 * i + 1] = (float)(sin(a) * (x - cx) + (cos(a) - 1) * (y - cy) - 1.61);
        }
    run_warp(px, w, h, cn, CLV_U8, flow, w, h, 0, "chelsea rotated");
    free(px);
    r = th_load_photo("chelsea.png", CLV_F32, &px, &w, &h, &cn);
    if (r > 0) {
        run_warp(px, w, h, cn, CLV_F32, flow, w, h, 0, "chelsea rotated");
        free(px);
    }
    free(flow);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0); /* keep result lines in order with stderr */
    REQUIRE(mkdtemp(tmpdir) != NULL, "mkdtemp: %s", strerror(errno));
    flo_tests();

    ctx = test_context();
    printf("device: %s (%s)\n", clv_context_device_name(ctx), clv_context_platform_name(ctx));
    color_tests();
    eval_tests();
    warp_tests();
    warp_photo();

    clv_context_release(ctx);
    remove_tmpdir();
    return test_finish("flowutil", passed);
}
