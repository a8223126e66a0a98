/* Fault injection (builds with -Dfault_injection=true only).
 *
 * For each operation: run "create a context + the operation + download" once
 * cleanly to learn its result and how many OpenCL calls it makes (K); then
 * for every N in 1..K make call N fail and check that
 *   - a status comes back (no crash, no abort): CLV_ERROR_* from
 *     clv_context_create or from the operation;
 *   - the message (clv_last_error / clv_context_create_error) names the
 *     OpenCL call that was made to fail;
 *   - once failures stop, the same context runs the operation again and
 *     gets exactly the clean result;
 *   - after releasing everything no OpenCL object is alive
 *     (clv_debug_live_objects); host memory leaks are LeakSanitizer's job
 *     (the sanitizer build runs this test).
 * A pass with the program cache off repeats this for one op so that program
 * builds from source fail too. */
#include <math.h>
#include <string.h>

#include <clvision/cl_interop.h>

#include "testutil.h"

#define W 61
#define H 43

typedef struct outbuf {
    unsigned char *data;
    size_t len, cap;
} outbuf;

static int append(outbuf *o, const void *p, size_t n)
{
    if (o->len + n > o->cap) {
        size_t cap = (o->len + n) * 2;
        unsigned char *q = realloc(o->data, cap);
        if (!q)
            return 0;
        o->data = q;
        o->cap = cap;
    }
    memcpy(o->data + o->len, p, n);
    o->len += n;
    return 1;
}

/* Download img and append its packed pixels to o. */
static clv_status grab(const clv_image *img, outbuf *o)
{
    size_t bytes = (size_t)clv_image_width(img) * (size_t)clv_image_height(img) *
                   (size_t)clv_image_channels(img) * clv_pixel_type_size(clv_image_type(img));
    void *host = malloc(bytes);
    if (!host)
        return CLV_ERROR_OUT_OF_MEMORY;
    clv_status st = clv_image_download(img, host, 0);
    if (st == CLV_OK && !append(o, host, bytes))
        st = CLV_ERROR_OUT_OF_MEMORY;
    free(host);
    return st;
}

/* A textured test picture, shifted by (dx, dy): smooth enough for flow,
 * with corners for Shi-Tomasi. */
static float pattern(double x, double y, double dx, double dy)
{
    x -= dx;
    y -= dy;
    double v = 120.0 + 50.0 * sin(x * 0.37) * cos(y * 0.29) + 30.0 * sin((x + 2.0 * y) * 0.11) +
               40.0 * ((((int)floor(x / 9.0) + (int)floor(y / 7.0)) & 1) ? 1.0 : -1.0) * 0.5;
    return (float)v;
}

/* Create an image and upload the pattern (u8 or f32, any channel count). */
static clv_status make(clv_context *ctx, int w, int h, int c, clv_pixel_type t, double dx,
                       double dy, clv_image **out)
{
    *out = NULL;
    size_t n = (size_t)w * (size_t)h * (size_t)c;
    void *host = malloc(n * clv_pixel_type_size(t));
    if (!host)
        return CLV_ERROR_OUT_OF_MEMORY;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int k = 0; k < c; k++) {
                float v = pattern(x + 3 * k, y, dx, dy);
                size_t i = ((size_t)y * (size_t)w + (size_t)x) * (size_t)c + (size_t)k;
                if (t == CLV_U8)
                    ((unsigned char *)host)[i] = (unsigned char)fminf(fmaxf(v, 0.0f), 255.0f);
                else
                    ((float *)host)[i] = t == CLV_F32 && c == 3 ? v / 64.0f : v;
            }
    clv_image *img = NULL;
    clv_status st = clv_image_create(ctx, w, h, c, t, &img);
    if (st == CLV_OK)
        st = clv_image_upload(img, host, 0);
    free(host);
    if (st != CLV_OK) {
        clv_image_release(img);
        return st;
    }
    *out = img;
    return CLV_OK;
}

#define TRY(expr)                                                                        \
    do {                                                                                 \
        st = (expr);                                                                     \
        if (st != CLV_OK)                                                                \
            goto out;                                                                    \
    } while (0)

static clv_status op_upload(clv_context *ctx, outbuf *o)
{
    clv_status st = CLV_OK;
    clv_image *a = NULL, *b = NULL;
    TRY(make(ctx, W, H, 3, CLV_U8, 0, 0, &a));
    TRY(clv_image_create(ctx, W, H, 3, CLV_U8, &b));
    unsigned char host[W * H * 3];
    for (size_t i = 0; i < sizeof host; i++)
        host[i] = (unsigned char)(i * 7u);
    TRY(clv_image_upload_async(b, host, 0));
    TRY(clv_image_wait(b));
    TRY(grab(a, o));
    TRY(grab(b, o));
out:
    clv_image_release(a);
    clv_image_release(b);
    return st;
}

static clv_status op_transpose(clv_context *ctx, outbuf *o)
{
    clv_status st = CLV_OK;
    clv_image *a = NULL, *b = NULL;
    TRY(make(ctx, W, H, 3, CLV_U8, 0, 0, &a));
    TRY(clv_image_create(ctx, H, W, 3, CLV_U8, &b));
    TRY(clv_transpose(ctx, a, b));
    TRY(grab(b, o));
out:
    clv_image_release(a);
    clv_image_release(b);
    return st;
}

static clv_status op_resize(clv_context *ctx, outbuf *o)
{
    clv_status st = CLV_OK;
    clv_image *a = NULL, *b = NULL, *c = NULL;
    TRY(make(ctx, W, H, 1, CLV_F32, 0, 0, &a));
    TRY(clv_image_create(ctx, 29, 17, 1, CLV_F32, &b));
    TRY(clv_image_create(ctx, 97, 66, 1, CLV_F32, &c));
    TRY(clv_resize(ctx, a, b));
    TRY(clv_resize(ctx, a, c));
    TRY(grab(b, o));
    TRY(grab(c, o));
out:
    clv_image_release(a);
    clv_image_release(b);
    clv_image_release(c);
    return st;
}

static clv_status op_box(clv_context *ctx, outbuf *o)
{
    clv_status st = CLV_OK;
    clv_image *a = NULL, *b = NULL;
    TRY(make(ctx, W, H, 4, CLV_U8, 0, 0, &a));
    TRY(clv_image_create(ctx, W, H, 4, CLV_U8, &b));
    TRY(clv_box_filter(ctx, a, b, 7, 5, CLV_BORDER_REFLECT101));
    TRY(grab(b, o));
out:
    clv_image_release(a);
    clv_image_release(b);
    return st;
}

static clv_status op_gaussian(clv_context *ctx, outbuf *o)
{
    clv_status st = CLV_OK;
    clv_image *a = NULL, *b = NULL;
    TRY(make(ctx, W, H, 1, CLV_U8, 0, 0, &a));
    TRY(clv_image_create(ctx, W, H, 1, CLV_U8, &b));
    TRY(clv_gaussian_blur(ctx, a, b, 1.7, 2.3, 0, 0, CLV_BORDER_WRAP));
    TRY(grab(b, o));
out:
    clv_image_release(a);
    clv_image_release(b);
    return st;
}

static clv_status op_bilateral(clv_context *ctx, outbuf *o)
{
    clv_status st = CLV_OK;
    clv_image *a = NULL, *b = NULL;
    TRY(make(ctx, W, H, 3, CLV_U8, 0, 0, &a));
    TRY(clv_image_create(ctx, W, H, 3, CLV_U8, &b));
    TRY(clv_bilateral(ctx, a, b, 3.0, 25.0, 4, CLV_BORDER_REFLECT101));
    TRY(grab(b, o));
out:
    clv_image_release(a);
    clv_image_release(b);
    return st;
}

static clv_status op_grid(clv_context *ctx, outbuf *o)
{
    clv_status st = CLV_OK;
    clv_image *a = NULL, *b = NULL;
    TRY(make(ctx, W, H, 1, CLV_U8, 0, 0, &a));
    TRY(clv_image_create(ctx, W, H, 1, CLV_U8, &b));
    clv_grid_params p = clv_grid_params_default();
    TRY(clv_bilateral_grid(ctx, a, b, &p));
    TRY(grab(b, o));
out:
    clv_image_release(a);
    clv_image_release(b);
    return st;
}

static clv_status op_tonemap(clv_context *ctx, outbuf *o)
{
    clv_status st = CLV_OK;
    clv_image *a = NULL, *b = NULL;
    TRY(make(ctx, W, H, 3, CLV_F32, 0, 0, &a));
    TRY(clv_image_create(ctx, W, H, 3, CLV_U8, &b));
    clv_tonemap_params p = clv_tonemap_params_default();
    TRY(clv_tonemap_local(ctx, a, b, &p));
    TRY(grab(b, o));
out:
    clv_image_release(a);
    clv_image_release(b);
    return st;
}

static clv_status op_pyramid(clv_context *ctx, outbuf *o)
{
    clv_status st = CLV_OK;
    clv_image *a = NULL;
    clv_pyramid *p = NULL;
    TRY(make(ctx, W, H, 1, CLV_U8, 0, 0, &a));
    TRY(clv_pyramid_create(ctx, W, H, 1, CLV_U8, 3, 0.5, &p));
    TRY(clv_pyramid_build(ctx, p, a));
    for (int i = 0; i < clv_pyramid_levels(p); i++)
        TRY(grab(clv_pyramid_level(p, i), o));
out:
    clv_pyramid_release(p);
    clv_image_release(a);
    return st;
}

static clv_status op_corners(clv_context *ctx, outbuf *o)
{
    clv_status st = CLV_OK;
    clv_image *a = NULL;
    clv_corner pts[64];
    int n = 0;
    TRY(make(ctx, W, H, 1, CLV_U8, 0, 0, &a));
    clv_corner_params p = clv_corner_params_default();
    p.max_corners = 64;
    p.quality_level = 0.05;
    p.min_distance = 3;
    TRY(clv_corners_shi_tomasi(ctx, a, &p, pts, &n));
    if (!append(o, &n, sizeof n) || !append(o, pts, (size_t)n * sizeof pts[0]))
        st = CLV_ERROR_OUT_OF_MEMORY;
out:
    clv_image_release(a);
    return st;
}

static clv_status op_lk(clv_context *ctx, outbuf *o)
{
    clv_status st = CLV_OK;
    clv_image *a = NULL, *b = NULL;
    clv_pyramid *pa = NULL, *pb = NULL;
    clv_point in[12], out_pts[12];
    uint8_t status[12];
    float err[12];
    for (int i = 0; i < 12; i++) {
        in[i].x = 10.0f + 4.0f * (float)i;
        in[i].y = 8.0f + 2.5f * (float)i;
    }
    TRY(make(ctx, W, H, 1, CLV_F32, 0, 0, &a));
    TRY(make(ctx, W, H, 1, CLV_F32, 1.3, 0.6, &b));
    TRY(clv_pyramid_create(ctx, W, H, 1, CLV_F32, 2, 0.5, &pa));
    TRY(clv_pyramid_create(ctx, W, H, 1, CLV_F32, 2, 0.5, &pb));
    TRY(clv_pyramid_build(ctx, pa, a));
    TRY(clv_pyramid_build(ctx, pb, b));
    clv_lk_params p = clv_lk_params_default();
    p.levels = 2;
    TRY(clv_lk_track(ctx, pa, pb, in, out_pts, status, err, 12, &p));
    if (!append(o, out_pts, sizeof out_pts) || !append(o, status, sizeof status) ||
        !append(o, err, sizeof err))
        st = CLV_ERROR_OUT_OF_MEMORY;
out:
    clv_pyramid_release(pa);
    clv_pyramid_release(pb);
    clv_image_release(a);
    clv_image_release(b);
    return st;
}

static clv_status op_farneback(clv_context *ctx, outbuf *o)
{
    clv_status st = CLV_OK;
    clv_image *a = NULL, *b = NULL, *f = NULL, *rgb = NULL, *wp = NULL;
    TRY(make(ctx, W, H, 1, CLV_U8, 0, 0, &a));
    TRY(make(ctx, W, H, 1, CLV_U8, 1.3, 0.6, &b));
    TRY(clv_image_create(ctx, W, H, 2, CLV_F32, &f));
    TRY(clv_image_create(ctx, W, H, 3, CLV_U8, &rgb));
    TRY(clv_image_create(ctx, W, H, 1, CLV_U8, &wp));
    clv_farneback_params p = clv_farneback_params_default();
    p.levels = 2;
    p.iterations = 2;
    TRY(clv_farneback(ctx, a, b, f, &p));
    TRY(clv_flow_to_color(ctx, f, rgb, 0.0));
    TRY(clv_warp(ctx, b, f, wp));
    clv_flow_stats fs;
    TRY(clv_flow_eval(ctx, f, f, &fs));
    TRY(grab(f, o));
    TRY(grab(rgb, o));
    TRY(grab(wp, o));
    if (!append(o, &fs, sizeof fs))
        st = CLV_ERROR_OUT_OF_MEMORY;
out:
    clv_image_release(a);
    clv_image_release(b);
    clv_image_release(f);
    clv_image_release(rgb);
    clv_image_release(wp);
    return st;
}

/* Where a failing step of an operation puts its message when it is not the
 * context's last error: another context's (msg_ctx), or the creation
 * message (msg_create). Set by the step, reset by run_one. */
static clv_context *msg_ctx;
static int msg_create;
static char msg_saved[4096]; /* msg_ctx's message, saved before it is released */

/* cl_interop.h: a second clvision context adopting the first one's
 * cl_context and device (its own queue), an application buffer (made with
 * plain OpenCL, neither counted nor failed) wrapped on it at an offset (a
 * sub-buffer) with a pitch of its own; a box filter on the first context
 * from that wrap (an image of another context: markers on both queues), a
 * pyramid from it (the level-0 copy by rows), and a box filter on the second
 * context into the first one's image, downloaded by the first after
 * waiting for the second one's marker (clv_enqueue_marker,
 * clv_enqueue_wait_events). */
static struct {
    clv_context *c2;
    clv_image *wrap, *d1, *d2;
    clv_pyramid *pyr;
    cl_mem buf;
    cl_event done; /* io.c2's marker, waited for by ctx */
} io;
static uint64_t c2_cache_events; /* cache_rejected + cache_write_failures of io.c2 */

/* Releases (clv_*_release wait for pending work and cannot report a failed
 * wait: done by run_one with injection off, as it releases ctx). */
static void interop_cleanup(void)
{
    clv_pyramid_release(io.pyr);
    clv_image_release(io.wrap);
    clv_image_release(io.d1);
    clv_image_release(io.d2);
    clv_context_release(io.c2);
    if (io.done)
        REQUIRE(clReleaseEvent(io.done) == CL_SUCCESS, "clReleaseEvent");
    if (io.buf)
        REQUIRE(clReleaseMemObject(io.buf) == CL_SUCCESS, "clReleaseMemObject");
    memset(&io, 0, sizeof io);
}

static clv_status op_interop(clv_context *ctx, outbuf *o)
{
    clv_status st = CLV_OK;
    cl_context cl = clv_context_cl_context(ctx);
    cl_device_id dev = clv_context_cl_device(ctx);
    cl_uint bits = 0;
    if (clGetDeviceInfo(dev, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof bits, &bits, NULL) != CL_SUCCESS)
        return CLV_ERROR_OPENCL;
    const size_t off = (bits / 8 + 63) / 64 * 64, pitch = 128;
    const size_t bytes = off + (size_t)H * pitch;
    unsigned char *host = calloc(1, bytes);
    if (!host)
        return CLV_ERROR_OUT_OF_MEMORY;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            host[off + (size_t)y * pitch + (size_t)x] = (unsigned char)pattern(x, y, 0, 0);
    cl_int err;
    io.buf = clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, host, &err);
    free(host);
    if (err != CL_SUCCESS) {
        io.buf = NULL;
        return CLV_ERROR_OPENCL;
    }
    msg_create = 1;
    TRY(clv_context_create_cl(cl, dev, NULL, NULL, &io.c2));
    msg_create = 0;
    msg_ctx = io.c2;
    TRY(clv_image_wrap_buffer(io.c2, io.buf, off, W, H, 1, CLV_U8, pitch, &io.wrap));
    msg_ctx = NULL;
    TRY(clv_image_create(ctx, W, H, 1, CLV_U8, &io.d1));
    TRY(clv_image_create(ctx, W, H, 1, CLV_U8, &io.d2));
    TRY(clv_box_filter(ctx, io.wrap, io.d1, 5, 3, CLV_BORDER_REFLECT101));
    TRY(clv_pyramid_create(ctx, W, H, 1, CLV_U8, 2, 0.5, &io.pyr));
    TRY(clv_pyramid_build(ctx, io.pyr, io.wrap));
    msg_ctx = io.c2;
    TRY(clv_box_filter(io.c2, io.wrap, io.d2, 3, 3, CLV_BORDER_REPLICATE));
    TRY(clv_enqueue_marker(io.c2, &io.done)); /* events: ctx waits for c2's work */
    msg_ctx = NULL;
    TRY(clv_enqueue_wait_events(ctx, 1, &io.done));
    TRY(grab(io.d1, o));
    TRY(grab(io.d2, o));
    TRY(grab(clv_pyramid_level(io.pyr, 1), o));
out:
    if (st != CLV_OK && msg_ctx)
        snprintf(msg_saved, sizeof msg_saved, "%s", clv_last_error(msg_ctx));
    if (io.c2) {
        clv_context_stats cs;
        if (clv_context_get_stats(io.c2, &cs) == CLV_OK)
            c2_cache_events += cs.cache_rejected + cs.cache_write_failures;
    }
    return st;
}

/* Views and host memory: an image with a staged view (odd origin) and a
 * direct one (whole rows at row 8: a sub-buffer), a box filter from the
 * staged view into a staged view of a second image (copies in and out), a
 * Gaussian from the direct view, a view of a view downloaded; an image over
 * 64-byte aligned host memory written through a mapping and transposed, and
 * a mapped read of the result. */
static struct {
    clv_image *a, *b, *c, *va, *vb, *vc, *vd, *vv, *host, *t;
    unsigned char *mem;
} vw;

static void views_cleanup(void)
{
    clv_image_release(vw.va); /* views first or last: either works */
    clv_image_release(vw.a);
    clv_image_release(vw.vb);
    clv_image_release(vw.vd);
    clv_image_release(vw.vc);
    clv_image_release(vw.vv);
    clv_image_release(vw.b);
    clv_image_release(vw.c);
    clv_image_release(vw.host); /* unmaps a mapping a failure left */
    clv_image_release(vw.t);
    free(vw.mem);
    memset(&vw, 0, sizeof vw);
}

static clv_status op_views(clv_context *ctx, outbuf *o)
{
    clv_status st = CLV_OK;
    void *p = NULL;
    size_t pitch = 0;
    TRY(make(ctx, W, H, 1, CLV_U8, 0, 0, &vw.a));
    TRY(clv_image_create(ctx, W, H, 1, CLV_U8, &vw.b));
    TRY(clv_image_create(ctx, W, H, 1, CLV_U8, &vw.c));
    TRY(clv_image_view(vw.a, 3, 5, 31, 17, &vw.va));
    TRY(clv_image_view(vw.b, 7, 1, 31, 17, &vw.vb));
    TRY(clv_image_view(vw.a, 0, 8, W, 21, &vw.vd));
    TRY(clv_image_view(vw.vd, 5, 3, 9, 7, &vw.vv));
    TRY(clv_box_filter(ctx, vw.va, vw.vb, 5, 3, CLV_BORDER_REFLECT101));
    TRY(clv_image_view(vw.c, 0, 8, W, 21, &vw.vc));
    TRY(clv_gaussian_blur(ctx, vw.vd, vw.vc, 1.5, 0, 0, 0, CLV_BORDER_REPLICATE));
    TRY(grab(vw.b, o));
    TRY(grab(vw.c, o));
    TRY(grab(vw.vv, o));
    vw.mem = aligned_alloc(64, 64 * (size_t)H);
    if (!vw.mem)
        return CLV_ERROR_OUT_OF_MEMORY;
    TRY(clv_image_create_host(ctx, vw.mem, 64, W, H, 1, CLV_U8, &vw.host));
    TRY(clv_image_map(vw.host, CLV_MAP_WRITE, &p, &pitch));
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            ((unsigned char *)p)[(size_t)y * pitch + (size_t)x] = (unsigned char)(x * 3 + y);
    TRY(clv_image_unmap(vw.host, p));
    TRY(clv_image_create(ctx, H, W, 1, CLV_U8, &vw.t));
    TRY(clv_transpose(ctx, vw.host, vw.t));
    TRY(clv_image_map(vw.t, CLV_MAP_READ, &p, &pitch));
    for (int y = 0; y < W; y++)
        if (!append(o, (unsigned char *)p + (size_t)y * pitch, H))
            return CLV_ERROR_OUT_OF_MEMORY; /* the cleanup unmaps */
    TRY(clv_image_unmap(vw.t, p));
out:
    return st;
}

/* clv_cache_warm of one operation with one input format (flow_to_color:
 * f32 x 2): its images, pyramids and call; the result is what it ran. */
static clv_status op_cache_warm(clv_context *ctx, outbuf *o)
{
    clv_status st = CLV_OK;
    static const char *const names[] = {"flow_to_color"};
    clv_cache_warm_report r;
    TRY(clv_cache_warm(ctx, names, 1, &r));
    const int ran[3] = {r.ops, r.calls, r.skipped};
    if (!append(o, ran, sizeof ran))
        return CLV_ERROR_OUT_OF_MEMORY;
out:
    return st;
}

/* Asking before calling: clv_device_info_get (its own enumeration and
 * queries; the message is the creation message), clv_context_device_info,
 * and clv_op_supported on placeholders for a Gaussian (its programs built,
 * nothing enqueued) and a corner detection (its read-backs dry). The result
 * is the answers and the device's name. */
static struct {
    clv_image *a, *b;
} sq;

static void supported_cleanup(void)
{
    clv_image_release(sq.a);
    clv_image_release(sq.b);
    memset(&sq, 0, sizeof sq);
}

static clv_status op_supported(clv_context *ctx, outbuf *o)
{
    clv_status st = CLV_OK;
    clv_device_info in, cin;
    msg_create = 1;
    TRY(clv_device_info_get("0:0", &in));
    msg_create = 0;
    TRY(clv_context_device_info(ctx, &cin));
    if (!append(o, in.name, strlen(in.name)) || !append(o, cin.name, strlen(cin.name)))
        return CLV_ERROR_OUT_OF_MEMORY;
    TRY(clv_image_placeholder(ctx, W, H, 3, CLV_U8, &sq.a));
    TRY(clv_image_placeholder(ctx, W, H, 3, CLV_U8, &sq.b));
    const clv_arg g[] = {CLV_ARG_IMAGE("src", sq.a), CLV_ARG_IMAGE("dst", sq.b),
                         CLV_ARG_DOUBLE("sigma_x", 2.0)};
    TRY(clv_op_supported(ctx, clv_op_find("gaussian_blur"), g, 3, NULL, 0));
    clv_image_release(sq.a);
    sq.a = NULL;
    TRY(clv_image_placeholder(ctx, W, H, 1, CLV_U8, &sq.a));
    clv_corner pts[8];
    int n = 0;
    const clv_arg c[] = {CLV_ARG_IMAGE("img", sq.a), CLV_ARG_INT("max_corners", 8),
                         CLV_ARG_PTR("out", CLV_PARAM_ARRAY, pts), CLV_ARG_INT("capacity", 8),
                         CLV_ARG_PTR("count", CLV_PARAM_STRUCT, &n)};
    TRY(clv_op_supported(ctx, clv_op_find("corners_shi_tomasi_n"), c, 5, NULL, 0));
    if (!append(o, &n, sizeof n))
        return CLV_ERROR_OUT_OF_MEMORY;
out: /* msg_create stays set when clv_device_info_get failed (run_one resets it) */
    return st;
}

typedef clv_status (*op_fn)(clv_context *ctx, outbuf *o);
static const struct {
    const char *name;
    op_fn fn;
    void (*cleanup)(void); /* releases deferred until injection is off, or NULL */
} ops[] = {
    {"upload", op_upload, NULL},       {"transpose", op_transpose, NULL},
    {"resize", op_resize, NULL},       {"box", op_box, NULL},
    {"gaussian", op_gaussian, NULL},   {"bilateral", op_bilateral, NULL},
    {"grid", op_grid, NULL},           {"tonemap", op_tonemap, NULL},
    {"pyramid", op_pyramid, NULL},     {"corners", op_corners, NULL},
    {"lk", op_lk, NULL},               {"farneback", op_farneback, NULL},
    {"interop", op_interop, interop_cleanup},
    {"views", op_views, views_cleanup},
    {"cache_warm", op_cache_warm, NULL},
    {"supported", op_supported, supported_cleanup},
};

static long points_total, points_failed_create, points_failed_op, points_absorbed;

/* Create + op with call `n` of the sequence failing (0: none). Returns the
 * number of OpenCL calls the sequence made. */
static uint64_t run_one(const clv_context_options *opts, int op, uint64_t n, const outbuf *ref,
                        outbuf *res)
{
    const char *name = ops[op].name;
    uint64_t base = clv_debug_cl_calls();
    REQUIRE(clv_debug_fail_at(n ? base + n : 0) == CLV_OK, "fault injection not built in");
    clv_context *ctx = NULL;
    clv_status st = clv_context_create(opts, &ctx);
    const char *inj = clv_debug_injected_call();
    if (st != CLV_OK) {
        REQUIRE(clv_debug_fail_at(0) == CLV_OK, "off");
        CHECK(n && *inj, "%s: context creation failed without an injected fault: %s", name,
              clv_context_create_error());
        CHECK(*inj && strstr(clv_context_create_error(), inj),
              "%s: fault %llu in %s: creation message does not name it: %s", name,
              (unsigned long long)n, inj, clv_context_create_error());
        CHECK(ctx == NULL, "%s: failed create left a context", name);
        CHECK(test_no_live_objects(name),
              "%s: objects alive after a failed create (fault %llu in %s)", name,
              (unsigned long long)n, inj);
        points_failed_create++;
        return clv_debug_cl_calls() - base;
    }
    res->len = 0;
    msg_ctx = NULL;
    msg_create = 0;
    c2_cache_events = 0;
    st = ops[op].fn(ctx, res);
    uint64_t used = clv_debug_cl_calls() - base;
    inj = clv_debug_injected_call();
    REQUIRE(clv_debug_fail_at(0) == CLV_OK, "off");
    if (ops[op].cleanup)
        ops[op].cleanup();
    if (st != CLV_OK) {
        /* the step that failed may have left its message elsewhere (and
         * released that context since: msg_ctx is then only compared) */
        const char *m = msg_create ? clv_context_create_error()
                        : msg_ctx  ? msg_saved
                                   : clv_last_error(ctx);
        points_failed_op++;
        CHECK(*inj, "%s: failed without an injected fault: %s", name, m);
        CHECK(*inj && strstr(m, inj),
              "%s: fault %llu in %s: status %s, message does not name the call: %s", name,
              (unsigned long long)n, inj, clv_status_string(st), m);
        msg_ctx = NULL;
        msg_create = 0;
        /* the context stays usable */
        res->len = 0;
        st = ops[op].fn(ctx, res);
        CHECK(st == CLV_OK, "%s: fault %llu in %s: next run fails: %s: %s", name,
              (unsigned long long)n, inj, clv_status_string(st), clv_last_error(ctx));
        if (ops[op].cleanup)
            ops[op].cleanup();
    } else if (*inj) {
        points_absorbed++;
        /* A fault that changes nothing the caller can see is allowed only
         * in the disk cache, which is documented to rebuild an entry the
         * driver rejects (counted in stats.cache_rejected) and to go on when
         * an entry cannot be written (stats.cache_write_failures). */
        clv_context_stats s;
        REQUIRE(clv_context_get_stats(ctx, &s) == CLV_OK, "stats");
        int cache_call = strcmp(inj, "clCreateProgramWithBinary") == 0 ||
                         strcmp(inj, "clBuildProgram") == 0 ||
                         strcmp(inj, "clGetProgramInfo") == 0;
        CHECK(cache_call && (s.cache_rejected > 0 || s.cache_write_failures > 0 ||
                             c2_cache_events > 0),
              "%s: fault %llu in %s was swallowed (status OK)", name, (unsigned long long)n,
              inj);
    }
    if (ref && st == CLV_OK)
        CHECK(res->len == ref->len && memcmp(res->data, ref->data, ref->len) == 0,
              "%s: fault %llu in %s: result after recovery differs from the clean run", name,
              (unsigned long long)n, inj);
    clv_context_release(ctx);
    CHECK(test_no_live_objects(name), "%s: objects alive after release (fault %llu in %s)", name,
          (unsigned long long)n, inj);
    return used;
}

static void sweep(const clv_context_options *opts, int op, const char *label)
{
    outbuf ref = {0}, res = {0};
    /* twice: the first may fill the disk cache */
    (void)run_one(opts, op, 0, NULL, &ref);
    uint64_t k = run_one(opts, op, 0, NULL, &ref);
    REQUIRE(k > 0, "no OpenCL calls?");
    int fails0 = test_failures;
    for (uint64_t n = 1; n <= k; n++) {
        run_one(opts, op, n, &ref, &res);
        points_total++;
        if (test_failures > fails0 + 20)
            break; /* enough output for one op */
    }
    printf("%-10s %-9s %4llu fault points\n", ops[op].name, label, (unsigned long long)k);
    fflush(stdout);
    free(ref.data);
    free(res.data);
}

int main(int argc, char **argv)
{
    if (clv_debug_fail_at(0) != CLV_OK || clv_debug_fail_at(1) != CLV_OK) {
        fprintf(stderr, "this build has no fault injection (-Dfault_injection=true)\n");
        return 1;
    }
    REQUIRE(clv_debug_fail_at(0) == CLV_OK, "off");
    clv_context *probe = test_context(); /* exits 77 only when no device exists at all */
    clv_context_release(probe);

    clv_context_options opts = clv_context_options_default();
    for (int op = 0; op < (int)(sizeof ops / sizeof ops[0]); op++) {
        if (argc > 1 && strcmp(argv[1], ops[op].name) != 0)
            continue;
        sweep(&opts, op, "cached");
    }
    /* builds from source: the cache off, one small program */
    opts.cache = -1;
    if (argc == 1 || strcmp(argv[1], "transpose") == 0)
        sweep(&opts, 1, "uncached");
    printf("fault points: %ld (creation failed %ld, operation failed %ld, absorbed by the "
           "disk cache %ld)\n",
           points_total, points_failed_create, points_failed_op, points_absorbed);
    return test_finish("faults", (int)points_total);
}
