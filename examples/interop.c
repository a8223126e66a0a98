/* clvision inside an application's own OpenCL world (clvision/cl_interop.h).
 *
 * The application owns the OpenCL context, its queue and its buffers, and
 * runs kernels of its own. clvision works on a view (an odd rectangle) of
 * the application's buffer and writes into a view of a second one; the
 * steps are chained by events, with no clFinish and no host wait in between:
 *
 *   app kernel "produce"  -> input buffer            (app queue, event)
 *   clEnqueueFillBuffer   -> output buffer (guard)   (app queue, event)
 *   clv_enqueue_wait_events(both)
 *   clv_gaussian_blur(view of input -> clvision image)
 *   clv_box_filter(clvision image -> view of output)
 *   clv_enqueue_marker -> event
 *   app kernel "consume" (waits for the marker): output view -> result buffer
 *   non-blocking reads of the result and the output buffer, then one wait.
 *
 * The program then checks every pixel against a plain C reference (u8, +-1
 * per step), checks that nothing of the output buffer outside the view was
 * written, releases clvision and runs its own kernel once more to show the
 * application's objects still work. Device: the first GPU of any platform,
 * else the first device; the application's queue is out of order where the
 * device offers it (so only the events order the work). Exit 0 on success,
 * 1 with one line on stderr saying what failed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clvision/clvision.h>
#include <clvision/cl_interop.h>

enum { W = 333, H = 211, PITCH = 384 };          /* the application's buffer layout */
enum { VX = 17, VY = 9, VW = 201, VH = 150 };   /* the rectangle clvision works on */
#define SIGMA 1.5
#define GUARD 0xA5

static const char *app_source =
    "__kernel void produce(__global uchar *buf, int w, int h, int pitch)\n"
    "{\n"
    "    int x = get_global_id(0), y = get_global_id(1);\n"
    "    if (x >= w || y >= h) return;\n"
    "    buf[y * pitch + x] = (uchar)((x * 7 + y * 13 + (x * y) % 31) & 255);\n"
    "}\n"
    "__kernel void consume(__global const uchar *buf, int x0, int y0, int pitch,\n"
    "                      __global uchar *res, int w, int h)\n"
    "{\n"
    "    int x = get_global_id(0), y = get_global_id(1);\n"
    "    if (x >= w || y >= h) return;\n"
    "    res[y * w + x] = (uchar)(255 - buf[(y0 + y) * pitch + x0 + x]);\n"
    "}\n";

static int pattern(int x, int y) { return (x * 7 + y * 13 + (x * y) % 31) & 255; }

static int reflect101(int i, int n)
{
    if (n == 1)
        return 0;
    while (i < 0 || i >= n)
        i = i < 0 ? -i : 2 * n - 2 - i;
    return i;
}

/* Separable Gaussian as clv_gaussian_blur documents it (ksize 2*ceil(3 sigma)+1,
 * weights normalised to 1, REFLECT101 at the edges of the w x h image). */
static void ref_gaussian(const unsigned char *src, int w, int h, double sigma, unsigned char *dst)
{
    int r = (int)ceil(3.0 * sigma);
    double k[64], sum = 0.0;
    for (int i = -r; i <= r; i++)
        sum += k[i + r] = exp(-(double)(i * i) / (2.0 * sigma * sigma));
    for (int i = 0; i <= 2 * r; i++)
        k[i] /= sum;
    double *tmp = malloc(sizeof(double) * (size_t)w * (size_t)h);
    if (!tmp) {
        fprintf(stderr, "interop: out of host memory\n");
        exit(1);
    }
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            double a = 0.0;
            for (int i = -r; i <= r; i++)
                a += k[i + r] * src[y * w + reflect101(x + i, w)];
            tmp[y * w + x] = a;
        }
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            double a = 0.0;
            for (int i = -r; i <= r; i++)
                a += k[i + r] * tmp[reflect101(y + i, h) * w + x];
            dst[y * w + x] = (unsigned char)floor(a + 0.5);
        }
    free(tmp);
}

/* 3x3 mean with REPLICATE edges. */
static void ref_box3(const unsigned char *src, int w, int h, unsigned char *dst)
{
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int a = 0;
            for (int j = -1; j <= 1; j++)
                for (int i = -1; i <= 1; i++) {
                    int xx = x + i < 0 ? 0 : x + i >= w ? w - 1 : x + i;
                    int yy = y + j < 0 ? 0 : y + j >= h ? h - 1 : y + j;
                    a += src[yy * w + xx];
                }
            dst[y * w + x] = (unsigned char)((a + 4) / 9);
        }
}

/* First pixel differing by more than tol, or -1. */
static long first_diff(const unsigned char *a, const unsigned char *b, size_t n, int tol)
{
    for (size_t i = 0; i < n; i++)
        if (abs((int)a[i] - (int)b[i]) > tol)
            return (long)i;
    return -1;
}

#define CL_CHECK(call)                                                          \
    do {                                                                        \
        cl_int e_ = (call);                                                     \
        if (e_ != CL_SUCCESS) {                                                 \
            fprintf(stderr, "interop: %s failed: OpenCL error %d\n", #call, e_); \
            goto out;                                                           \
        }                                                                       \
    } while (0)

#define CLV_CHECK(call)                                                              \
    do {                                                                             \
        clv_status s_ = (call);                                                      \
        if (s_ != CLV_OK) {                                                          \
            fprintf(stderr, "interop: %s: %s: %s\n", #call, clv_status_string(s_),  \
                    ctx ? clv_last_error(ctx) : clv_context_create_error());         \
            goto out;                                                                \
        }                                                                            \
    } while (0)

static cl_int pick_device(cl_platform_id *platform, cl_device_id *device)
{
    cl_platform_id ps[16];
    cl_uint np = 0;
    cl_int e = clGetPlatformIDs(16, ps, &np);
    if (e != CL_SUCCESS)
        return e;
    for (int want_gpu = 1; want_gpu >= 0; want_gpu--)
        for (cl_uint i = 0; i < np && i < 16; i++) {
            cl_uint nd = 0;
            e = clGetDeviceIDs(ps[i], want_gpu ? CL_DEVICE_TYPE_GPU : CL_DEVICE_TYPE_ALL, 1,
                               device, &nd);
            if (e == CL_SUCCESS && nd > 0) {
                *platform = ps[i];
                return CL_SUCCESS;
            }
        }
    return CL_DEVICE_NOT_FOUND;
}

int main(void)
{
    int rc = 1;
    cl_int err = CL_SUCCESS;
    cl_platform_id platform = NULL;
    cl_device_id device = NULL;
    cl_context cl = NULL;
    cl_command_queue q = NULL;
    cl_program prog = NULL;
    cl_kernel produce = NULL, consume = NULL;
    cl_mem in_buf = NULL, out_buf = NULL, res_buf = NULL;
    cl_event ev_in = NULL, ev_fill = NULL, ev_clv = NULL, ev_use = NULL, ev_rd[2] = {NULL, NULL};
    clv_context *ctx = NULL;
    clv_image *in_img = NULL, *out_img = NULL, *in_view = NULL, *out_view = NULL, *blur = NULL;
    unsigned char *host_in = NULL, *host_out = NULL, *res = NULL, *got_blur = NULL;
    unsigned char *ref_crop = NULL, *ref_blur = NULL, *ref_box = NULL;
    const size_t vn = (size_t)VW * VH;

    CL_CHECK(pick_device(&platform, &device));
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)platform, 0};
    cl = clCreateContext(props, 1, &device, NULL, NULL, &err);
    CL_CHECK(err);
    cl_command_queue_properties qp = 0, want = CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE;
    CL_CHECK(clGetDeviceInfo(device, CL_DEVICE_QUEUE_PROPERTIES, sizeof qp, &qp, NULL));
    q = clCreateCommandQueue(cl, device, qp & want, &err);
    CL_CHECK(err);
    prog = clCreateProgramWithSource(cl, 1, &app_source, NULL, &err);
    CL_CHECK(err);
    CL_CHECK(clBuildProgram(prog, 1, &device, "", NULL, NULL));
    produce = clCreateKernel(prog, "produce", &err);
    CL_CHECK(err);
    consume = clCreateKernel(prog, "consume", &err);
    CL_CHECK(err);
    in_buf = clCreateBuffer(cl, CL_MEM_READ_WRITE, (size_t)PITCH * H, NULL, &err);
    CL_CHECK(err);
    out_buf = clCreateBuffer(cl, CL_MEM_READ_WRITE, (size_t)PITCH * H, NULL, &err);
    CL_CHECK(err);
    res_buf = clCreateBuffer(cl, CL_MEM_WRITE_ONLY, vn, NULL, &err);
    CL_CHECK(err);

    /* 1. The application's own work: fill its input, clear its output. */
    cl_int w = W, h = H, pitch = PITCH, x0 = VX, y0 = VY, vw = VW, vh = VH;
    size_t gsz[2] = {W, H}, vsz[2] = {VW, VH};
    unsigned char guard = GUARD;
    CL_CHECK(clSetKernelArg(produce, 0, sizeof in_buf, &in_buf));
    CL_CHECK(clSetKernelArg(produce, 1, sizeof w, &w));
    CL_CHECK(clSetKernelArg(produce, 2, sizeof h, &h));
    CL_CHECK(clSetKernelArg(produce, 3, sizeof pitch, &pitch));
    CL_CHECK(clEnqueueNDRangeKernel(q, produce, 2, NULL, gsz, NULL, 0, NULL, &ev_in));
    CL_CHECK(clEnqueueFillBuffer(q, out_buf, &guard, 1, 0, (size_t)PITCH * H, 0, NULL, &ev_fill));

    /* 2. clvision on the application's context (its own queue on it) and buffers. */
    CLV_CHECK(clv_context_create_cl(cl, device, NULL, NULL, &ctx));
    CLV_CHECK(clv_image_wrap_buffer(ctx, in_buf, 0, W, H, 1, CLV_U8, PITCH, &in_img));
    CLV_CHECK(clv_image_wrap_buffer(ctx, out_buf, 0, W, H, 1, CLV_U8, PITCH, &out_img));
    CLV_CHECK(clv_image_view(in_img, VX, VY, VW, VH, &in_view));
    CLV_CHECK(clv_image_view(out_img, VX, VY, VW, VH, &out_view));
    CLV_CHECK(clv_image_create(ctx, VW, VH, 1, CLV_U8, &blur));
    cl_event before[2] = {ev_in, ev_fill};
    CLV_CHECK(clv_enqueue_wait_events(ctx, 2, before));
    CLV_CHECK(clv_gaussian_blur(ctx, in_view, blur, SIGMA, 0.0, 0, 0, CLV_BORDER_REFLECT101));
    CLV_CHECK(clv_box_filter(ctx, blur, out_view, 3, 3, CLV_BORDER_REPLICATE));
    CLV_CHECK(clv_enqueue_marker(ctx, &ev_clv));

    /* 3. The application's kernel consumes clvision's result. */
    CL_CHECK(clSetKernelArg(consume, 0, sizeof out_buf, &out_buf));
    CL_CHECK(clSetKernelArg(consume, 1, sizeof x0, &x0));
    CL_CHECK(clSetKernelArg(consume, 2, sizeof y0, &y0));
    CL_CHECK(clSetKernelArg(consume, 3, sizeof pitch, &pitch));
    CL_CHECK(clSetKernelArg(consume, 4, sizeof res_buf, &res_buf));
    CL_CHECK(clSetKernelArg(consume, 5, sizeof vw, &vw));
    CL_CHECK(clSetKernelArg(consume, 6, sizeof vh, &vh));
    CL_CHECK(clEnqueueNDRangeKernel(q, consume, 2, NULL, vsz, NULL, 1, &ev_clv, &ev_use));

    host_in = malloc((size_t)PITCH * H);
    host_out = malloc((size_t)PITCH * H);
    res = malloc(vn);
    got_blur = malloc(vn);
    ref_crop = malloc(vn);
    ref_blur = malloc(vn);
    ref_box = malloc(vn);
    if (!host_in || !host_out || !res || !got_blur || !ref_crop || !ref_blur || !ref_box) {
        fprintf(stderr, "interop: out of host memory\n");
        goto out;
    }
    CL_CHECK(clEnqueueReadBuffer(q, res_buf, CL_FALSE, 0, vn, res, 1, &ev_use, &ev_rd[0]));
    CL_CHECK(clEnqueueReadBuffer(q, out_buf, CL_FALSE, 0, (size_t)PITCH * H, host_out, 1,
                                 &ev_use, &ev_rd[1]));
    CL_CHECK(clWaitForEvents(2, ev_rd)); /* the first time the host waits */

    /* 4. Check: the Gaussian against the reference on the cropped input, the box
     * filter against the reference on clvision's Gaussian (so each step has its
     * own +-1), the consumer's inversion exactly, and the guard band. */
    for (int y = 0; y < VH; y++)
        for (int x = 0; x < VW; x++)
            ref_crop[y * VW + x] = (unsigned char)pattern(VX + x, VY + y);
    ref_gaussian(ref_crop, VW, VH, SIGMA, ref_blur);
    CLV_CHECK(clv_image_download(blur, got_blur, VW));
    long at = first_diff(got_blur, ref_blur, vn, 1);
    if (at >= 0) {
        fprintf(stderr, "interop: Gaussian of the view differs at (%ld, %ld): %d, reference %d\n",
                at % VW, at / VW, got_blur[at], ref_blur[at]);
        goto out;
    }
    ref_box3(got_blur, VW, VH, ref_box);
    for (size_t i = 0; i < vn; i++)
        ref_box[i] = (unsigned char)(255 - ref_box[i]);
    at = first_diff(res, ref_box, vn, 1);
    if (at >= 0) {
        fprintf(stderr, "interop: consumed result differs at (%ld, %ld): %d, reference %d\n",
                at % VW, at / VW, res[at], ref_box[at]);
        goto out;
    }
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            int inside = x >= VX && x < VX + VW && y >= VY && y < VY + VH;
            unsigned char v = host_out[(size_t)y * PITCH + x];
            if (inside ? (unsigned char)(255 - v) != res[(y - VY) * VW + x - VX] : v != GUARD) {
                fprintf(stderr, "interop: output buffer pixel (%d, %d) = %d %s\n", x, y, v,
                        inside ? "is not what the consumer read" : "outside the view was written");
                goto out;
            }
        }

    /* 5. clvision gone, the application's objects still work. */
    clv_image_release(blur);
    clv_image_release(out_view);
    clv_image_release(in_view);
    clv_image_release(out_img);
    clv_image_release(in_img);
    blur = out_view = in_view = out_img = in_img = NULL;
    clv_context_release(ctx);
    ctx = NULL;
    CL_CHECK(clEnqueueNDRangeKernel(q, produce, 2, NULL, gsz, NULL, 0, NULL, NULL));
    CL_CHECK(clEnqueueReadBuffer(q, in_buf, CL_TRUE, 0, (size_t)PITCH * H, host_in, 0, NULL,
                                 NULL));
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            if (host_in[(size_t)y * PITCH + x] != pattern(x, y)) {
                fprintf(stderr, "interop: the application's kernel after clvision: pixel (%d, %d)"
                                " = %d, expected %d\n", x, y, host_in[(size_t)y * PITCH + x],
                        pattern(x, y));
                goto out;
            }
    printf("interop: %dx%d view at (%d, %d) of a %dx%d application buffer: Gaussian + box "
           "between the application's kernels, chained by events (%s queue): OK\n",
           VW, VH, VX, VY, W, H, (qp & want) ? "out-of-order" : "in-order");
    rc = 0;
out:
    clv_image_release(blur);
    clv_image_release(out_view);
    clv_image_release(in_view);
    clv_image_release(out_img);
    clv_image_release(in_img);
    clv_context_release(ctx);
    if (ev_rd[1]) clReleaseEvent(ev_rd[1]);
    if (ev_rd[0]) clReleaseEvent(ev_rd[0]);
    if (ev_use) clReleaseEvent(ev_use);
    if (ev_clv) clReleaseEvent(ev_clv);
    if (ev_fill) clReleaseEvent(ev_fill);
    if (ev_in) clReleaseEvent(ev_in);
    if (res_buf) clReleaseMemObject(res_buf);
    if (out_buf) clReleaseMemObject(out_buf);
    if (in_buf) clReleaseMemObject(in_buf);
    if (consume) clReleaseKernel(consume);
    if (produce) clReleaseKernel(produce);
    if (prog) clReleaseProgram(prog);
    if (q) clReleaseCommandQueue(q);
    if (cl) clReleaseContext(cl);
    free(host_in);
    free(host_out);
    free(res);
    free(got_blur);
    free(ref_crop);
    free(ref_blur);
    free(ref_box);
    return rc;
}
