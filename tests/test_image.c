/* Images: size checks, pitch, host transfers with packed and padded strides
 * for every type and channel count, overflow and limit handling. */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static int passed = 0;
#define T(cond, ...)                     \
    do {                                 \
        CHECK(cond, __VA_ARGS__);        \
        if (cond)                        \
            passed++;                    \
    } while (0)

static void round_trip(clv_context *ctx, int w, int h, int cn, clv_pixel_type type, size_t pad)
{
    size_t es = clv_pixel_type_size(type);
    size_t row = (size_t)w * (size_t)cn * es, stride = row + pad;
    unsigned char *in = malloc(stride * (size_t)h), *out = malloc(stride * (size_t)h);
    REQUIRE(in && out, "malloc");
    test_fill_random(in, stride * (size_t)h, CLV_U8, (uint64_t)(w * 31 + h * 7 + cn));
    memset(out, 0xCD, stride * (size_t)h);
    clv_image *img = NULL;
    REQUIRE_OK(ctx, clv_image_create(ctx, w, h, cn, type, &img));
    T(clv_image_width(img) == w && clv_image_height(img) == h && clv_image_channels(img) == cn &&
          clv_image_type(img) == type,
      "getters");
    size_t pitch = clv_image_pitch(img);
    T(pitch % 64 == 0 && pitch >= row, "pitch %zu for row %zu", pitch, row);
    REQUIRE_OK(ctx, clv_image_upload(img, in, pad ? stride : 0));
    REQUIRE_OK(ctx, clv_image_download(img, out, pad ? stride : 0));
    int same = 1;
    for (int y = 0; y < h; y++) {
        same &= memcmp(in + (size_t)y * stride, out + (size_t)y * stride, row) == 0;
        /* padding bytes of the host rows are left alone */
        for (size_t p = row; p < stride; p++)
            same &= out[(size_t)y * stride + p] == 0xCD;
    }
    T(same, "round trip %dx%d cn=%d %s pad=%zu", w, h, cn, clv_pixel_type_name(type), pad);
    clv_image_release(img);
    free(in);
    free(out);
}

int main(void)
{
    clv_context *ctx = test_context();
    const clv_pixel_type types[] = {CLV_U8, CLV_U16, CLV_F32};
    const int cns[] = {1, 2, 3, 4};
    const int sizes[][2] = {{1, 1}, {7, 3}, {64, 2}, {333, 17}, {1920, 1080}};
    for (size_t t = 0; t < 3; t++)
        for (size_t c = 0; c < 4; c++)
            for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
                round_trip(ctx, sizes[s][0], sizes[s][1], cns[c], types[t], 0);
                round_trip(ctx, sizes[s][0], sizes[s][1], cns[c], types[t], 13);
            }

    clv_image *img = NULL;
    const struct { int w, h, cn, type; } bad[] = {
        {0, 5, 1, CLV_U8},     {5, 0, 1, CLV_U8},     {-1, 5, 1, CLV_U8},
        {65537, 1, 1, CLV_U8}, {1, 65537, 1, CLV_U8}, {5, 5, -1, CLV_U8},
        {5, 5, 0, CLV_U8},     {5, 5, 5, CLV_U8},     {5, 5, 1, 0},
        {5, 5, 1, 99},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        clv_status s = clv_image_create(ctx, bad[i].w, bad[i].h, bad[i].cn,
                                        (clv_pixel_type)bad[i].type, &img);
        T(s == CLV_ERROR_INVALID_ARGUMENT && img == NULL && clv_last_error(ctx)[0],
          "bad image %dx%d cn=%d type=%d -> %s", bad[i].w, bad[i].h, bad[i].cn, bad[i].type,
          clv_status_string(s));
    }
    T(clv_image_create(ctx, 5, 5, 1, CLV_U8, NULL) == CLV_ERROR_INVALID_ARGUMENT, "NULL out");
    T(clv_image_create(NULL, 5, 5, 1, CLV_U8, &img) == CLV_ERROR_INVALID_ARGUMENT, "NULL ctx");
    /* 65536 x 65536 x 4 x f32 = 64 GiB: refused with a status, not a crash. */
    clv_status s = clv_image_create(ctx, 65536, 65536, 4, CLV_F32, &img);
    T(s != CLV_OK && img == NULL, "huge image refused (%s: %s)", clv_status_string(s),
      clv_last_error(ctx));

    REQUIRE_OK(ctx, clv_image_create(ctx, 10, 4, 3, CLV_U16, &img));
    unsigned char buf[1024];
    T(clv_image_upload(img, NULL, 0) == CLV_ERROR_INVALID_ARGUMENT, "NULL host");
    T(clv_image_upload(img, buf, 59) == CLV_ERROR_INVALID_ARGUMENT, "stride < row");
    T(clv_image_download(img, buf, 59) == CLV_ERROR_INVALID_ARGUMENT, "stride < row (down)");
    T(strstr(clv_last_error(ctx), "stride") != NULL, "message: %s", clv_last_error(ctx));
    T(clv_image_upload(NULL, buf, 0) == CLV_ERROR_INVALID_ARGUMENT, "NULL image");
    clv_image_release(img);
    clv_image_release(NULL);

    T(clv_pixel_type_size(CLV_U8) == 1 && clv_pixel_type_size(CLV_U16) == 2 &&
          clv_pixel_type_size(CLV_F32) == 4 && clv_pixel_type_size((clv_pixel_type)9) == 0,
      "type sizes");
    clv_context_release(ctx);
    return test_finish("image", passed);
}
