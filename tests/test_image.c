/* Images: size checks, pitch, host transfers with packed and padded strides
 * for every type and channel count, overflow and limit handling. */
#include <stdint.h>
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
    /* A pointer near the top of the address space whose rows would end past
     * it (issue 13 #18): the offset fits in size_t, the end address wraps. */
    {
        void *top = (void *)(UINTPTR_MAX - 200);
        T(clv_image_download(img, top, 0) == CLV_ERROR_INVALID_ARGUMENT &&
              strstr(clv_last_error(ctx), "wraps") != NULL,
          "download end wraps: %s", clv_last_error(ctx));
        T(clv_image_upload(img, top, 64) == CLV_ERROR_INVALID_ARGUMENT, "upload end wraps");
        T(clv_image_upload_async(img, top, 0) == CLV_ERROR_INVALID_ARGUMENT,
          "async upload end wraps");
    }
    clv_image_release(img);
    clv_image_release(NULL);

    /* asynchronous uploads: ordering against queued work and later ops */
    {
        enum { AW = 301, AH = 77, N = 12 };
        unsigned char *frames[N], *got = malloc(AW * AH);
        REQUIRE(got, "malloc");
        for (int i = 0; i < N; i++) {
            frames[i] = malloc(AW * AH);
            REQUIRE(frames[i], "malloc");
            test_fill_random(frames[i], AW * AH, CLV_U8, (uint64_t)(1000 + i));
        }
        clv_image *ring[3] = {NULL, NULL, NULL}, *out = NULL;
        for (int i = 0; i < 3; i++)
            REQUIRE_OK(ctx, clv_image_create(ctx, AW, AH, 1, CLV_U8, &ring[i]));
        REQUIRE_OK(ctx, clv_image_create(ctx, AH, AW, 1, CLV_U8, &out));
        int good = 1;
        /* frame i+1 uploads while frame i is transposed; then check frame i */
        REQUIRE_OK(ctx, clv_image_upload_async(ring[0], frames[0], 0));
        for (int i = 0; i < N; i++) {
            if (i + 1 < N)
                REQUIRE_OK(ctx, clv_image_upload_async(ring[(i + 1) % 3], frames[i + 1], 0));
            REQUIRE_OK(ctx, clv_transpose(ctx, ring[i % 3], out));
            REQUIRE_OK(ctx, clv_image_download(out, got, 0));
            for (int y = 0; y < AH && good; y++)
                for (int x = 0; x < AW; x++)
                    if (got[(size_t)x * AH + y] != frames[i][(size_t)y * AW + x]) {
                        good = 0;
                        fprintf(stderr, "frame %d differs at (%d, %d)\n", i, x, y);
                        break;
                    }
        }
        T(good, "pipelined asynchronous uploads give every frame's own result");
        /* an upload queued after an op that reads the image does not overtake it */
        REQUIRE_OK(ctx, clv_image_upload(ring[0], frames[0], 0));
        REQUIRE_OK(ctx, clv_transpose(ctx, ring[0], out));
        REQUIRE_OK(ctx, clv_image_upload_async(ring[0], frames[1], 0));
        REQUIRE_OK(ctx, clv_image_download(out, got, 0));
        int ordered = 1;
        for (int y = 0; y < AH; y++)
            for (int x = 0; x < AW; x++)
                ordered &= got[(size_t)x * AH + y] == frames[0][(size_t)y * AW + x];
        T(ordered, "upload waits for the op already reading the image");
        REQUIRE_OK(ctx, clv_image_wait(ring[0]));
        REQUIRE_OK(ctx, clv_image_download(ring[0], got, 0));
        T(memcmp(got, frames[1], AW * AH) == 0, "image holds the new data after the wait");
        T(clv_image_upload_async(NULL, got, 0) == CLV_ERROR_INVALID_ARGUMENT, "NULL image");
        T(clv_image_upload_async(ring[1], NULL, 0) == CLV_ERROR_INVALID_ARGUMENT, "NULL host");
        T(clv_image_upload_async(ring[1], got, 5) == CLV_ERROR_INVALID_ARGUMENT, "short stride");
        T(clv_image_wait(NULL) == CLV_ERROR_INVALID_ARGUMENT, "wait NULL");
        REQUIRE_OK(ctx, clv_image_upload_async(ring[2], frames[2], 0));
        clv_image_release(ring[2]); /* releasing waits for the upload */
        clv_image_release(ring[0]);
        clv_image_release(ring[1]);
        clv_image_release(out);
        REQUIRE_OK(ctx, clv_finish(ctx));
        for (int i = 0; i < N; i++)
            free(frames[i]);
        free(got);
    }

    T(clv_pixel_type_size(CLV_U8) == 1 && clv_pixel_type_size(CLV_U16) == 2 &&
          clv_pixel_type_size(CLV_F32) == 4 && clv_pixel_type_size((clv_pixel_type)9) == 0,
      "type sizes");
    clv_context_release(ctx);
    return test_finish("image", passed);
}
