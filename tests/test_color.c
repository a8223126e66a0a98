/* clv_convert_color and clv_convert_type against a plain C reference (below)
 * on odd sizes, every type, channel count and code, a real photo, and
 * against values OpenCV computed (tests/data/make_color.py made them). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static clv_context *ctx;
static int passed;
static uint64_t seed = 7000;

static const clv_pixel_type all_types[] = {CLV_U8, CLV_U16, CLV_F32};
static const int sizes[][2] = {{1, 1}, {7, 5}, {33, 17}, {641, 3}};
enum { N_SIZES = (int)(sizeof sizes / sizeof sizes[0]) };

/* ---- the reference: one value at a time, in the obvious way ---- */

static double get(const void *p, clv_pixel_type t, size_t i)
{
    switch (t) {
    case CLV_U8: return ((const uint8_t *)p)[i];
    case CLV_U16: return ((const uint16_t *)p)[i];
    default: return ((const float *)p)[i];
    }
}

static void put(void *p, clv_pixel_type t, size_t i, double v)
{
    switch (t) {
    case CLV_U8: ((uint8_t *)p)[i] = (uint8_t)v; break;
    case CLV_U16: ((uint16_t *)p)[i] = (uint16_t)v; break;
    default: ((float *)p)[i] = (float)v; break;
    }
}

static double type_max(clv_pixel_type t) { return t == CLV_U8 ? 255 : t == CLV_U16 ? 65535 : 1.0; }

/* Gray of R, G, B as color.h specifies it. */
static double ref_gray(clv_pixel_type t, double r, double g, double b, int w709)
{
    if (t == CLV_F32) {
        const float fr = (float)r, fg = (float)g, fb = (float)b;
        return w709 ? fmaf(fb, 0.0722f, fmaf(fg, 0.7152f, fr * 0.2126f))
                    : fmaf(fb, 0.114f, fmaf(fg, 0.587f, fr * 0.299f));
    }
    const uint32_t R = (uint32_t)r, G = (uint32_t)g, B = (uint32_t)b;
    return w709 ? (double)((R * 2126u + G * 7152u + B * 722u + 5000u) / 10000u)
                : (double)((R * 9798u + G * 19235u + B * 3735u + 16384u) >> 15);
}

/* Destination channels of code for scn source channels, 0 when refused. */
static int ref_dcn(clv_color_code code, int scn)
{
    switch (code) {
    case CLV_COLOR_RGB2GRAY:
    case CLV_COLOR_BGR2GRAY:
    case CLV_COLOR_RGB2GRAY_709:
    case CLV_COLOR_BGR2GRAY_709: return scn == 3 || scn == 4 ? 1 : 0;
    case CLV_COLOR_GRAY2RGB: return scn == 1 ? 3 : 0;
    case CLV_COLOR_GRAY2RGBA: return scn == 1 ? 4 : 0;
    case CLV_COLOR_RGB2BGR: return scn == 3 || scn == 4 ? scn : 0;
    case CLV_COLOR_RGBA2RGB: return scn == 4 ? 3 : 0;
    case CLV_COLOR_RGB2RGBA: return scn == 3 ? 4 : 0;
    }
    return 0;
}

static void ref_color(const void *src, void *dst, int w, int h, int scn, clv_pixel_type t,
                      clv_color_code code)
{
    const int dcn = ref_dcn(code, scn);
    for (size_t p = 0; p < (size_t)w * (size_t)h; p++) {
        const size_t s = p * (size_t)scn, d = p * (size_t)dcn;
        switch (code) {
        case CLV_COLOR_RGB2GRAY:
        case CLV_COLOR_RGB2GRAY_709:
            put(dst, t, d, ref_gray(t, get(src, t, s), get(src, t, s + 1), get(src, t, s + 2),
                                    code == CLV_COLOR_RGB2GRAY_709));
            break;
        case CLV_COLOR_BGR2GRAY:
        case CLV_COLOR_BGR2GRAY_709:
            put(dst, t, d, ref_gray(t, get(src, t, s + 2), get(src, t, s + 1), get(src, t, s),
                                    code == CLV_COLOR_BGR2GRAY_709));
            break;
        case CLV_COLOR_GRAY2RGB:
        case CLV_COLOR_GRAY2RGBA:
            for (int c = 0; c < 3; c++)
                put(dst, t, d + (size_t)c, get(src, t, s));
            if (dcn == 4)
                put(dst, t, d + 3, type_max(t));
            break;
        case CLV_COLOR_RGB2BGR:
            put(dst, t, d, get(src, t, s + 2));
            put(dst, t, d + 1, get(src, t, s + 1));
            put(dst, t, d + 2, get(src, t, s));
            if (scn == 4)
                put(dst, t, d + 3, get(src, t, s + 3));
            break;
        case CLV_COLOR_RGBA2RGB:
        case CLV_COLOR_RGB2RGBA:
            for (int c = 0; c < 3; c++)
                put(dst, t, d + (size_t)c, get(src, t, s + (size_t)c));
            if (dcn == 4)
                put(dst, t, d + 3, type_max(t));
            break;
        }
    }
}

/* saturate(float(v) * float(scale)), ties to even, NaN -> 0 for integers. */
static void ref_type(const void *src, clv_pixel_type st, void *dst, clv_pixel_type dt, size_t n,
                     double scale)
{
    for (size_t i = 0; i < n; i++) {
        const float v = (float)get(src, st, i) * (float)scale;
        if (dt == CLV_F32) {
            ((float *)dst)[i] = v;
            continue;
        }
        double q = isnan(v) ? 0.0 : rint(v);
        q = q < 0.0 ? 0.0 : q > type_max(dt) ? type_max(dt) : q;
        put(dst, dt, i, q);
    }
}

/* ---- device helpers ---- */

static clv_image *upload(const void *data, int w, int h, int cn, clv_pixel_type t)
{
    clv_image *img = NULL;
    REQUIRE_OK(ctx, clv_image_create(ctx, w, h, cn, t, &img));
    REQUIRE_OK(ctx, clv_image_upload(img, data, 0));
    return img;
}

/* A destination filled with 0xA5 bytes, so a missed write shows. */
static clv_image *poisoned(int w, int h, int cn, clv_pixel_type t)
{
    const size_t n = (size_t)w * (size_t)h * (size_t)cn * clv_pixel_type_size(t);
    unsigned char *junk = malloc(n);
    REQUIRE(junk, "out of memory");
    memset(junk, 0xA5, n);
    clv_image *img = upload(junk, w, h, cn, t);
    free(junk);
    return img;
}

/* dst's pixels equal want's bit for bit (NaN: any NaN). */
static int same_pixels(const clv_image *dst, const void *want, const char *label)
{
    const int w = clv_image_width(dst), h = clv_image_height(dst), cn = clv_image_channels(dst);
    const clv_pixel_type t = clv_image_type(dst);
    const size_t n = (size_t)w * (size_t)h * (size_t)cn, es = clv_pixel_type_size(t);
    unsigned char *got = malloc(n * es);
    REQUIRE(got, "out of memory");
    REQUIRE_OK(ctx, clv_image_download(dst, got, 0));
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < n; i++) {
        int eq = memcmp(got + i * es, (const unsigned char *)want + i * es, es) == 0;
        if (!eq && t == CLV_F32)
            eq = isnan(((float *)got)[i]) && isnan(((const float *)want)[i]);
        if (!eq && bad++ == 0)
            first = i;
    }
    CHECK(bad == 0, "%s: %zu of %zu values differ, first at %zu (pixel %zu, channel %zu): got %.9g, "
                    "want %.9g",
          label, bad, n, first, first / (size_t)cn, first % (size_t)cn, get(got, t, first),
          get(want, t, first));
    free(got);
    return bad == 0;
}

static const char *code_name(clv_color_code code)
{
    static const char *const names[] = {"rgb2gray", "bgr2gray", "rgb2gray_709", "bgr2gray_709",
                                        "gray2rgb", "gray2rgba", "rgb2bgr",   "rgba2rgb",
                                        "rgb2rgba"};
    return names[code];
}

/* Random pixels; f32 gets NaN, +-Inf and signed zeros among them. */
static void *random_pixels(int w, int h, int cn, clv_pixel_type t)
{
    const size_t n = (size_t)w * (size_t)h * (size_t)cn;
    void *p = malloc(n * clv_pixel_type_size(t));
    REQUIRE(p, "out of memory");
    test_fill_random(p, n, t, seed++);
    if (t == CLV_F32 && n > 8) {
        float *f = p;
        f[1] = NAN;
        f[3] = INFINITY;
        f[5] = -INFINITY;
        f[7] = -0.0f;
    }
    return p;
}

/* ---- the checks ---- */

static void check_color(const void *src, int w, int h, int scn, clv_pixel_type t,
                        clv_color_code code, const char *tag)
{
    const int dcn = ref_dcn(code, scn);
    char label[160];
    snprintf(label, sizeof label, "convert_color %s %s %s c%d %dx%d", tag, code_name(code),
             clv_pixel_type_name(t), scn, w, h);
    clv_image *s = upload(src, w, h, scn, t);
    clv_image *d = poisoned(w, h, dcn ? dcn : 1, t);
    clv_status st = clv_convert_color(ctx, s, d, code);
    if (!dcn) {
        CHECK(st == CLV_ERROR_INVALID_ARGUMENT && strstr(clv_last_error(ctx), "channel"),
              "%s: must be refused, got %s (%s)", label, clv_status_string(st),
              clv_last_error(ctx));
        passed += st == CLV_ERROR_INVALID_ARGUMENT;
    } else if (st != CLV_OK) {
        CHECK(0, "%s: %s: %s", label, clv_status_string(st), clv_last_error(ctx));
    } else {
        void *want = malloc((size_t)w * (size_t)h * (size_t)dcn * clv_pixel_type_size(t));
        REQUIRE(want, "out of memory");
        ref_color(src, want, w, h, scn, t, code);
        passed += same_pixels(d, want, label);
        free(want);
        /* the shape the descriptor gives is the one used */
        int ow, oh, ocn;
        clv_pixel_type ot;
        const clv_arg a[] = {CLV_ARG_IMAGE("src", s), CLV_ARG_INT("code", (int)code)};
        REQUIRE_OK(ctx, clv_op_output_shape(clv_op_find("convert_color"), a, 2, 1, &ow, &oh, &ocn,
                                            &ot, NULL, 0));
        CHECK(ow == w && oh == h && ocn == dcn && ot == t, "%s: output shape %dx%d c%d %s", label,
              ow, oh, ocn, clv_pixel_type_name(ot));
    }
    clv_image_release(s);
    clv_image_release(d);
}

static void every_code(void)
{
    for (int z = 0; z < N_SIZES; z++)
        for (int ti = 0; ti < 3; ti++)
            for (int scn = 1; scn <= 4; scn += scn == 1 ? 2 : 1) {
                const int w = sizes[z][0], h = sizes[z][1];
                void *src = random_pixels(w, h, scn, all_types[ti]);
                for (int code = 0; code <= CLV_COLOR_RGB2RGBA; code++)
                    check_color(src, w, h, scn, all_types[ti], (clv_color_code)code, "random");
                free(src);
            }
}

static void check_type(const void *src, int w, int h, int cn, clv_pixel_type st,
                       clv_pixel_type dt, double scale, const char *tag)
{
    char label[160];
    snprintf(label, sizeof label, "convert_type %s %s -> %s c%d %dx%d scale %.9g", tag,
             clv_pixel_type_name(st), clv_pixel_type_name(dt), cn, w, h, scale);
    clv_image *s = upload(src, w, h, cn, st);
    clv_image *d = poisoned(w, h, cn, dt);
    clv_status status = clv_convert_type(ctx, s, d, scale);
    if (status != CLV_OK) {
        CHECK(0, "%s: %s: %s", label, clv_status_string(status), clv_last_error(ctx));
    } else {
        const size_t n = (size_t)w * (size_t)h * (size_t)cn;
        void *want = malloc(n * clv_pixel_type_size(dt));
        REQUIRE(want, "out of memory");
        ref_type(src, st, want, dt, n, scale);
        passed += same_pixels(d, want, label);
        free(want);
    }
    clv_image_release(s);
    clv_image_release(d);
}

static void every_type(void)
{
    static const double scales[] = {1.0, 1.0 / 255.0, 255.0, 0.5, -1.0, 1.0 / 65535.0, 257.0,
                                    0.0};
    for (int z = 0; z < N_SIZES; z++)
        for (int si = 0; si < 3; si++)
            for (int cn = 1; cn <= 4; cn++) {
                const int w = sizes[z][0], h = sizes[z][1];
                void *src = random_pixels(w, h, cn, all_types[si]);
                for (int di = 0; di < 3; di++)
                    for (size_t k = 0; k < sizeof scales / sizeof scales[0]; k++) {
                        /* all scales at 7x5, two elsewhere (time) */
                        if (z != 1 && k != 0 && k != (size_t)(si == 2 ? 2 : 1))
                            continue;
                        check_type(src, w, h, cn, all_types[si], all_types[di], scales[k],
                                   "random");
                    }
                free(src);
            }
    /* ties, saturation and specials, f32 -> u8 and u16 */
    const float f[] = {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, 254.5f, 255.5f, 256.0f, 65534.5f,
                       65535.5f, 1e10f, -1e10f, NAN, INFINITY, -INFINITY, 3.4999998f,
                       0.49999997f, -0.0f};
    const int n = (int)(sizeof f / sizeof f[0]);
    check_type(f, n, 1, 1, CLV_F32, CLV_U8, 1.0, "ties");
    check_type(f, n, 1, 1, CLV_F32, CLV_U16, 1.0, "ties");
    check_type(f, n, 1, 1, CLV_F32, CLV_F32, 1.0, "specials");
    /* and the values the reference gives for them, spelled out */
    clv_image *s = upload(f, n, 1, 1, CLV_F32), *d = poisoned(n, 1, 1, CLV_U8);
    REQUIRE_OK(ctx, clv_convert_type(ctx, s, d, 1.0));
    uint8_t got[sizeof f / sizeof f[0]];
    REQUIRE_OK(ctx, clv_image_download(d, got, 0));
    static const uint8_t want[] = {0, 2, 2, 0, 0, 254, 255, 255, 255, 255, 255, 0, 0, 255, 0,
                                   3, 0, 0};
    CHECK(memcmp(got, want, sizeof want) == 0, "f32 -> u8 ties/saturation/NaN spelled out");
    passed += memcmp(got, want, sizeof want) == 0;
    clv_image_release(s);
    clv_image_release(d);
}

/* chelsea.png (RGB u8) through every code that takes 3 channels, and to f32
 * and back. */
static void photo(void)
{
    clv_host_image in = {0};
    clv_status s = clv_image_read(test_data_path("chelsea.png"), &in);
    REQUIRE(s == CLV_OK, "chelsea.png: %s: %s", clv_status_string(s), clv_io_last_error());
    REQUIRE(in.channels == 3 && in.type == CLV_U8 && in.stride == (size_t)in.width * 3,
            "chelsea.png: expected packed u8 RGB");
    for (int code = 0; code <= CLV_COLOR_RGB2RGBA; code++)
        if (ref_dcn((clv_color_code)code, 3))
            check_color(in.data, in.width, in.height, 3, CLV_U8, (clv_color_code)code, "chelsea");
    check_type(in.data, in.width, in.height, 3, CLV_U8, CLV_F32, 1.0 / 255.0, "chelsea");
    check_type(in.data, in.width, in.height, 3, CLV_U8, CLV_U16, 257.0, "chelsea");
    clv_host_image_free(&in);
}

/* ---- OpenCV's own values (tests/data/make_color.py, OpenCV 4.6.0) ---- */

enum { CW = 7, CH = 5 };

static const unsigned char cv_u8_rgb2gray[] = {48, 85, 122, 159, 167, 204, 91, 149, 170, 70, 120, 93, 143, 164, 71, 57, 120, 183, 67, 53, 116, 95, 171, 68, 67, 143, 190, 116, 167, 106, 118, 178, 117, 129, 189};
static const unsigned char cv_u8_bgr2gray[] = {70, 107, 144, 181, 141, 178, 65, 171, 144, 44, 94, 115, 165, 138, 45, 79, 142, 205, 41, 75, 138, 117, 193, 42, 89, 165, 164, 90, 141, 80, 140, 152, 91, 151, 163};
static const uint16_t cv_u16_rgb2gray[] = {12925, 22262, 31599, 40936, 42803, 52140, 23007, 33026, 43674, 46852, 19030, 29678, 20730, 31378, 45657, 19146, 31105, 23468, 35427, 39916, 51875, 27288, 20962, 34232, 40032, 53302, 28102, 21776, 27793, 42374, 49485, 25596, 20581, 35162, 42273};
static const uint32_t cv_f32_rgb2gray[] = {0xbb8c3157u, 0x3ec11bc4u, 0x3f423427u, 0x3f91ed35u, 0x3f9c3d91u, 0x3fcd10b4u, 0x3ede5f22u, 0x3f84bb10u, 0x3fa03303u, 0x3e5f0d71u, 0x3f3bb8ceu, 0x3eeb55d5u, 0x3f79a05bu, 0x3f984820u, 0x3e699bf6u, 0x3db54232u, 0x3f3cece5u, 0x3fb198c2u, 0x3e3f61e5u, 0x3d419c22u, 0x3f325e62u, 0x3ef5e458u, 0x3fa1c2fbu, 0x3e49f069u, 0x3e443240u, 0x3f79a05bu, 0x3fba974cu, 0x3f312a4au, 0x3f9c3d91u, 0x3f16c600u, 0x3f37a5a3u, 0x3faac187u, 0x3f33cdebu, 0x3f54ad8eu, 0x3fb9457cu};
static const uint32_t cv_u8_to_f32[] = {0x00000000u, 0x3b808081u, 0x3c008081u, 0x3c40c0c2u, 0x3c808081u, 0x3ca0a0a1u, 0x3cc0c0c2u, 0x3ce0e0e2u, 0x3d008081u, 0x3d109091u, 0x3d20a0a1u, 0x3d30b0b1u, 0x3d40c0c2u, 0x3d50d0d2u, 0x3d60e0e2u, 0x3d70f0f2u, 0x3d808081u, 0x3d888889u, 0x3d909091u, 0x3d989899u, 0x3da0a0a1u, 0x3da8a8a9u, 0x3db0b0b1u, 0x3db8b8b9u, 0x3dc0c0c2u, 0x3dc8c8cau, 0x3dd0d0d2u, 0x3dd8d8dau, 0x3de0e0e2u, 0x3de8e8eau, 0x3df0f0f2u, 0x3df8f8fau, 0x3e008081u, 0x3e048485u, 0x3e088889u, 0x3e0c8c8du, 0x3e109091u, 0x3e149495u, 0x3e189899u, 0x3e1c9c9du, 0x3e20a0a1u, 0x3e24a4a5u, 0x3e28a8a9u, 0x3e2cacadu, 0x3e30b0b1u, 0x3e34b4b5u, 0x3e38b8b9u, 0x3e3cbcbdu, 0x3e40c0c2u, 0x3e44c4c6u, 0x3e48c8cau, 0x3e4cccceu, 0x3e50d0d2u, 0x3e54d4d6u, 0x3e58d8dau, 0x3e5cdcdeu, 0x3e60e0e2u, 0x3e64e4e6u, 0x3e68e8eau, 0x3e6ceceeu, 0x3e70f0f2u, 0x3e74f4f6u, 0x3e78f8fau, 0x3e7cfcfeu, 0x3e808081u, 0x3e828283u, 0x3e848485u, 0x3e868687u, 0x3e888889u, 0x3e8a8a8bu, 0x3e8c8c8du, 0x3e8e8e8fu, 0x3e909091u, 0x3e929293u, 0x3e949495u, 0x3e969697u, 0x3e989899u, 0x3e9a9a9bu, 0x3e9c9c9du, 0x3e9e9e9fu, 0x3ea0a0a1u, 0x3ea2a2a3u, 0x3ea4a4a5u, 0x3ea6a6a7u, 0x3ea8a8a9u, 0x3eaaaaabu, 0x3eacacadu, 0x3eaeaeafu, 0x3eb0b0b1u, 0x3eb2b2b3u, 0x3eb4b4b5u, 0x3eb6b6b7u, 0x3eb8b8b9u, 0x3ebababbu, 0x3ebcbcbdu, 0x3ebebebfu, 0x3ec0c0c2u, 0x3ec2c2c4u, 0x3ec4c4c6u, 0x3ec6c6c8u, 0x3ec8c8cau, 0x3ecacaccu, 0x3eccccceu, 0x3ececed0u, 0x3ed0d0d2u, 0x3ed2d2d4u, 0x3ed4d4d6u, 0x3ed6d6d8u, 0x3ed8d8dau, 0x3edadadcu, 0x3edcdcdeu, 0x3ededee0u, 0x3ee0e0e2u, 0x3ee2e2e4u, 0x3ee4e4e6u, 0x3ee6e6e8u, 0x3ee8e8eau, 0x3eeaeaecu, 0x3eececeeu, 0x3eeeeef0u, 0x3ef0f0f2u, 0x3ef2f2f4u, 0x3ef4f4f6u, 0x3ef6f6f8u, 0x3ef8f8fau, 0x3efafafcu, 0x3efcfcfeu, 0x3efeff00u, 0x3f008081u};
static const unsigned char cv_f32_to_u8[] = {0, 2, 2, 0, 254, 255, 255, 0, 3, 0, 255};

/* The 7x5 inputs of make_color.py. */
static void cv_inputs(uint8_t *u8, uint16_t *u16, float *f32)
{
    for (int y = 0; y < CH; y++)
        for (int x = 0; x < CW; x++)
            for (int c = 0; c < 3; c++) {
                const int i = (y * CW + x) * 3 + c;
                const int v8 = (x * 37 + y * 101 + c * 59 + x * y * 13) % 256;
                u8[i] = (uint8_t)v8;
                u16[i] = (uint16_t)((x * 9337 + y * 20101 + c * 15859 + x * y * 1311) % 65536);
                f32[i] = (float)(v8 / 97.0 - 0.5);
            }
}

/* dst of code on src equals OpenCV's values (a 1-channel result). */
static int matches_cv(const void *src, clv_pixel_type t, clv_color_code code, const void *cv,
                      int w, int h)
{
    clv_image *s = upload(src, w, h, 3, t), *d = poisoned(w, h, 1, t);
    REQUIRE_OK(ctx, clv_convert_color(ctx, s, d, code));
    const size_t bytes = (size_t)w * (size_t)h * clv_pixel_type_size(t);
    unsigned char *got = malloc(bytes);
    REQUIRE(got, "out of memory");
    REQUIRE_OK(ctx, clv_image_download(d, got, 0));
    const int same = memcmp(got, cv, bytes) == 0;
    free(got);
    clv_image_release(s);
    clv_image_release(d);
    return same;
}

static void opencv_values(void)
{
    uint8_t u8[CW * CH * 3];
    uint16_t u16[CW * CH * 3];
    float f32[CW * CH * 3];
    cv_inputs(u8, u16, f32);
    int ok;
    ok = matches_cv(u8, CLV_U8, CLV_COLOR_RGB2GRAY, cv_u8_rgb2gray, CW, CH);
    CHECK(ok, "u8 rgb2gray differs from cv2.cvtColor(COLOR_RGB2GRAY)");
    passed += ok;
    ok = matches_cv(u8, CLV_U8, CLV_COLOR_BGR2GRAY, cv_u8_bgr2gray, CW, CH);
    CHECK(ok, "u8 bgr2gray differs from cv2.cvtColor(COLOR_BGR2GRAY)");
    passed += ok;
    ok = matches_cv(u16, CLV_U16, CLV_COLOR_RGB2GRAY, cv_u16_rgb2gray, CW, CH);
    CHECK(ok, "u16 rgb2gray differs from cv2.cvtColor(COLOR_RGB2GRAY)");
    passed += ok;
    /* f32: within 4 ulp of the largest input (OpenCV's own loops differ
     * by about one: color.h) */
    {
        clv_image *s = upload(f32, CW, CH, 3, CLV_F32), *d = poisoned(CW, CH, 1, CLV_F32);
        REQUIRE_OK(ctx, clv_convert_color(ctx, s, d, CLV_COLOR_RGB2GRAY));
        float got[CW * CH];
        REQUIRE_OK(ctx, clv_image_download(d, got, 0));
        double worst = 0.0;
        for (int i = 0; i < CW * CH; i++) {
            float cv;
            memcpy(&cv, &cv_f32_rgb2gray[i], sizeof cv);
            worst = fmax(worst, fabs((double)got[i] - (double)cv));
        }
        ok = worst <= 1e-6; /* inputs within [-0.5, 2.13]: 4 ulp of 2 is 9.5e-7 */
        CHECK(ok, "f32 rgb2gray: %.3g from cv2.cvtColor(COLOR_RGB2GRAY)", worst);
        passed += ok;
        clv_image_release(s);
        clv_image_release(d);
    }
    /* the values tell the weights apart: Rec. 709 must not match them */
    ok = !matches_cv(u8, CLV_U8, CLV_COLOR_RGB2GRAY_709, cv_u8_rgb2gray, CW, CH);
    CHECK(ok, "the OpenCV values do not tell Rec. 709 from Rec. 601");
    passed += ok;
    /* convertTo: u8 -> f32 / 255, f32 -> u8 (ties to even, saturation) */
    uint8_t ramp[129];
    for (int i = 0; i < 129; i++)
        ramp[i] = (uint8_t)i;
    clv_image *s = upload(ramp, 129, 1, 1, CLV_U8), *d = poisoned(129, 1, 1, CLV_F32);
    REQUIRE_OK(ctx, clv_convert_type(ctx, s, d, 1.0 / 255.0));
    uint32_t bits[129];
    REQUIRE_OK(ctx, clv_image_download(d, bits, 0));
    ok = memcmp(bits, cv_u8_to_f32, sizeof bits) == 0;
    CHECK(ok, "u8 -> f32 / 255 differs from OpenCV's convertTo");
    passed += ok;
    clv_image_release(s);
    clv_image_release(d);
    const float ties[] = {0.5f, 1.5f, 2.5f, -0.5f, 254.5f, 255.5f, 300.0f, -3.0f, 3.49999f, 0.25f,
                          512.0f};
    s = upload(ties, 11, 1, 1, CLV_F32);
    d = poisoned(11, 1, 1, CLV_U8);
    REQUIRE_OK(ctx, clv_convert_type(ctx, s, d, 1.0));
    uint8_t t8[11];
    REQUIRE_OK(ctx, clv_image_download(d, t8, 0));
    ok = memcmp(t8, cv_f32_to_u8, sizeof t8) == 0;
    CHECK(ok, "f32 -> u8 differs from OpenCV's convertTo");
    passed += ok;
    clv_image_release(s);
    clv_image_release(d);
}

/* ---- refusals ---- */

static void refusals(void)
{
    clv_image *c1, *c3, *c4, *g1, *f3, *small;
    REQUIRE_OK(ctx, clv_image_create(ctx, 8, 6, 1, CLV_U8, &c1));
    REQUIRE_OK(ctx, clv_image_create(ctx, 8, 6, 3, CLV_U8, &c3));
    REQUIRE_OK(ctx, clv_image_create(ctx, 8, 6, 4, CLV_U8, &c4));
    REQUIRE_OK(ctx, clv_image_create(ctx, 8, 6, 1, CLV_U8, &g1));
    REQUIRE_OK(ctx, clv_image_create(ctx, 8, 6, 3, CLV_F32, &f3));
    REQUIRE_OK(ctx, clv_image_create(ctx, 7, 6, 1, CLV_U8, &small));
    /* each refusal's status, and its message read at once */
#define REFUSE(call, what, word)                                                                \
    do {                                                                                        \
        clv_status st_ = (call);                                                                \
        const int ok_ = st_ == CLV_ERROR_INVALID_ARGUMENT && strstr(clv_last_error(ctx), word);  \
        CHECK(ok_, "%s: got %s, message '%s' (want '%s')", what, clv_status_string(st_),         \
              clv_last_error(ctx), word);                                                       \
        passed += ok_;                                                                          \
    } while (0)
    REFUSE(clv_convert_color(ctx, c1, g1, CLV_COLOR_RGB2GRAY), "gray source", "3 or 4 channels");
    REFUSE(clv_convert_color(ctx, c3, c4, CLV_COLOR_RGB2GRAY), "4-channel gray", "1 channel");
    REFUSE(clv_convert_color(ctx, c3, c1, CLV_COLOR_RGBA2RGB), "rgba2rgb of RGB", "4 channels");
    REFUSE(clv_convert_color(ctx, c4, c4, CLV_COLOR_RGB2BGR), "in place", "same image");
    REFUSE(clv_convert_color(ctx, c3, small, CLV_COLOR_RGB2GRAY), "other size", "7x6");
    REFUSE(clv_convert_color(ctx, f3, c1, CLV_COLOR_RGB2GRAY), "other type", "f32");
    REFUSE(clv_convert_color(ctx, c3, c1, (clv_color_code)9), "code 9", "code");
    REFUSE(clv_convert_color(ctx, c3, c1, (clv_color_code)-1), "code -1", "code");
    REFUSE(clv_convert_color(ctx, NULL, c1, CLV_COLOR_RGB2GRAY), "NULL source", "source");
    REFUSE(clv_convert_type(ctx, c1, small, 1.0), "other size", "7x6");
    REFUSE(clv_convert_type(ctx, c3, c1, 1.0), "other channels", "channels");
    REFUSE(clv_convert_type(ctx, c1, g1, NAN), "NaN scale", "scale");
    REFUSE(clv_convert_type(ctx, c1, g1, 1e39), "scale beyond float", "scale");
    REFUSE(clv_convert_type(ctx, c1, c1, 1.0), "in place", "same image");
    clv_image_release(c1);
    clv_image_release(c3);
    clv_image_release(c4);
    clv_image_release(g1);
    clv_image_release(f3);
    clv_image_release(small);
}

int main(void)
{
    ctx = test_context();
    if (!ctx)
        return TEST_SKIP;
    opencv_values();
    every_code();
    every_type();
    photo();
    refusals();
    clv_context_release(ctx);
    CHECK(test_no_live_objects("the end"), "objects left");
    return test_finish("color", passed);
}
