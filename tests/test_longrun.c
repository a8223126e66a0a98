/* Long run: a frame loop like a video pipeline (asynchronous upload of the
 * next frame, Farneback flow, colour coding, a box and a Gaussian filter,
 * downloads) over many small frames; process memory must stay flat after the
 * warm-up (no per-frame allocation in clvision). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

enum { W = 64, H = 48, WARMUP = 50 };

/* AddressSanitizer keeps freed blocks in a quarantine (256 MiB) and stores
 * every allocation stack, so RSS grows there by design: the sanitizer build
 * prints RSS but does not judge it (LeakSanitizer and the live-object counts
 * still do their part). */
#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#ifndef UNDER_ASAN
#define UNDER_ASAN 0
#endif

static long rss_kib(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    long pages = 0, resident = 0;
    if (!f)
        return -1;
    if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
        resident = -1;
    fclose(f);
    return resident < 0 ? -1 : resident * (sysconf(_SC_PAGESIZE) / 1024);
}

int main(int argc, char **argv)
{
    int frames = 2000;
    if (argc > 1)
        frames = atoi(argv[1]);
    clv_context *ctx = test_context();
    int passed = 0;
    unsigned char *host[2] = {malloc(W * H), malloc(W * H)};
    unsigned char *rgb = malloc(W * H * 3), *blur = malloc(W * H);
    float *flow = malloc(sizeof(float) * W * H * 2);
    REQUIRE(host[0] && host[1] && rgb && blur && flow, "malloc");
    clv_image *ring[3], *fl, *col, *bx, *gs;
    for (int i = 0; i < 3; i++)
        REQUIRE_OK(ctx, clv_image_create(ctx, W, H, 1, CLV_U8, &ring[i]));
    REQUIRE_OK(ctx, clv_image_create(ctx, W, H, 2, CLV_F32, &fl));
    REQUIRE_OK(ctx, clv_image_create(ctx, W, H, 3, CLV_U8, &col));
    REQUIRE_OK(ctx, clv_image_create(ctx, W, H, 1, CLV_U8, &bx));
    REQUIRE_OK(ctx, clv_image_create(ctx, W, H, 1, CLV_U8, &gs));

    long rss_warm = 0, rss_end = 0;
    clv_context_stats live_warm = {0}, live_end = {0};
    double max_mag = 0;
    for (int i = 0; i < frames; i++) {
        /* frame i: a texture moving one pixel per frame */
        unsigned char *h = host[i % 2];
        REQUIRE_OK(ctx, clv_image_wait(ring[(i + 1) % 3])); /* buffer i-2 reusable */
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++)
                h[y * W + x] = (unsigned char)(128 + 60 * ((((x + i) / 4) ^ (y / 4)) & 1) +
                                               (x * 7 + y * 3) % 29);
        REQUIRE_OK(ctx, clv_image_upload_async(ring[i % 3], h, 0));
        if (i == 0)
            continue;
        REQUIRE_OK(ctx, clv_farneback(ctx, ring[(i - 1) % 3], ring[i % 3], fl, NULL));
        REQUIRE_OK(ctx, clv_flow_to_color(ctx, fl, col, 0.0));
        REQUIRE_OK(ctx, clv_box_filter(ctx, ring[i % 3], bx, 5, 5, CLV_BORDER_REFLECT101));
        REQUIRE_OK(ctx, clv_gaussian_blur(ctx, bx, gs, 1.5, 0, 0, 0, CLV_BORDER_REPLICATE));
        REQUIRE_OK(ctx, clv_image_download(fl, flow, 0));
        REQUIRE_OK(ctx, clv_image_download(col, rgb, 0));
        REQUIRE_OK(ctx, clv_image_download(gs, blur, 0));
        double u = flow[((H / 2) * W + W / 2) * 2];
        u = u < 0 ? -u : u; /* the texture moves left: u is about -1 */
        max_mag = u > max_mag ? u : max_mag;
        if (i == WARMUP) {
            rss_warm = rss_kib();
            REQUIRE_OK(ctx, clv_context_get_stats(ctx, &live_warm));
        }
    }
    rss_end = rss_kib();
    REQUIRE_OK(ctx, clv_context_get_stats(ctx, &live_end));
    printf("longrun: live OpenCL objects after warm-up / at the end: mem %llu/%llu, kernels "
           "%llu/%llu, programs %llu/%llu, events %llu/%llu, queues %llu/%llu\n",
           (unsigned long long)live_warm.live_mem_objects,
           (unsigned long long)live_end.live_mem_objects,
           (unsigned long long)live_warm.live_kernels, (unsigned long long)live_end.live_kernels,
           (unsigned long long)live_warm.live_programs,
           (unsigned long long)live_end.live_programs, (unsigned long long)live_warm.live_events,
           (unsigned long long)live_end.live_events, (unsigned long long)live_warm.live_queues,
           (unsigned long long)live_end.live_queues);
    int flat = live_warm.live_mem_objects == live_end.live_mem_objects &&
               live_warm.live_kernels == live_end.live_kernels &&
               live_warm.live_programs == live_end.live_programs &&
               live_warm.live_events == live_end.live_events &&
               live_warm.live_queues == live_end.live_queues && live_end.live_mem_objects > 0;
    CHECK(flat, "the live OpenCL-object count changed after warm-up");
    passed += flat;
    long growth = rss_end - rss_warm;
    printf("longrun: %d frames, RSS after warm-up %ld KiB, at the end %ld KiB (growth %ld KiB)\n",
           frames, rss_warm, rss_end, growth);
    if (UNDER_ASAN) {
        printf("longrun: RSS growth not checked under AddressSanitizer\n");
    } else {
        CHECK(rss_warm > 0 && growth < 1024, "RSS grew by %ld KiB over %d frames", growth,
              frames - WARMUP);
        passed += rss_warm > 0 && growth < 1024;
    }
    CHECK(max_mag > 0.5, "the flow saw the motion (|u| = %g)", max_mag);
    passed += max_mag > 0.5;
    for (int i = 0; i < 3; i++)
        clv_image_release(ring[i]);
    clv_image_release(fl);
    clv_image_release(col);
    clv_image_release(bx);
    clv_image_release(gs);
    clv_context_release(ctx);
    int none = test_no_live_objects("after release");
    CHECK(none, "OpenCL objects alive after release");
    passed += none;
    free(host[0]);
    free(host[1]);
    free(rgb);
    free(blur);
    free(flow);
    return test_finish("longrun", passed);
}
