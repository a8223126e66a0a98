/* bench/twin: the kernels of twin_kernels.h through OpenCL on the first GPU
 * (the first device of any type when no platform has a GPU), timed with
 * profiling events (median of TWIN_REPS), results checked against the C
 * reference. Usage: twin_opencl KERNELS_FILE [BUILD_OPTIONS] */
#include "twin_cl.h"
#include "twin_host.h"

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s twin_kernels.h [build options]\n", argv[0]);
        return 2;
    }
    const char *opts = argc > 2 ? argv[2] : "";
    char *text = twin_read_file(argv[1], NULL);
    cl_device_id dev;
    char name[256];
    cl_context ctx;
    cl_command_queue q;
    twin_open(&dev, name, sizeof name, &ctx, &q);
    cl_int err;
    const char *sp = text;
    cl_program prog = clCreateProgramWithSource(ctx, 1, &sp, NULL, &err);
    CL_CHECK(err);
    if (clBuildProgram(prog, 1, &dev, opts, NULL, NULL) != CL_SUCCESS) {
        static char log[1 << 16];
        CL_CHECK(clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL));
        fprintf(stderr, "build failed:\n%s\n", log);
        return 1;
    }
    const char *ptx = getenv("TWIN_BINARY_OUT"); /* NVIDIA: the PTX the driver made */
    if (ptx) {
        size_t bs = 0;
        CL_CHECK(clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof bs, &bs, NULL));
        unsigned char *bin = malloc(bs);
        CL_CHECK(clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL));
        FILE *o = fopen(ptx, "wb");
        if (!o || fwrite(bin, 1, bs, o) != bs || fclose(o) != 0)
            fprintf(stderr, "%s: not written\n", ptx);
        free(bin);
    }
    const size_t n = (size_t)TWIN_W * TWIN_H;
    unsigned char *src = malloc(n), *box = malloc(n), *got = malloc(n);
    if (!src || !box || !got)
        return 1;
    twin_data(src, box);
    cl_mem s = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n, src, &err);
    CL_CHECK(err);
    cl_mem d = clCreateBuffer(ctx, CL_MEM_READ_WRITE, n, NULL, &err);
    CL_CHECK(err);
    const int w = TWIN_W, h = TWIN_H, n16 = (int)(n / 16);
    for (int k = 0; k < TWIN_NK; k++) {
        cl_kernel kern = clCreateKernel(prog, twin_names[k], &err);
        CL_CHECK(err);
        CL_CHECK(clSetKernelArg(kern, 0, sizeof s, &s));
        if (k == 0) {
            CL_CHECK(clSetKernelArg(kern, 1, sizeof d, &d));
            CL_CHECK(clSetKernelArg(kern, 2, sizeof n16, &n16));
        } else {
            CL_CHECK(clSetKernelArg(kern, 1, sizeof w, &w)); /* pitch */
            CL_CHECK(clSetKernelArg(kern, 2, sizeof w, &w));
            CL_CHECK(clSetKernelArg(kern, 3, sizeof h, &h));
            CL_CHECK(clSetKernelArg(kern, 4, sizeof d, &d));
        }
        size_t g[2], l[2];
        twin_shape(k, g, l);
        float us[TWIN_REPS];
        for (int r = 0; r < TWIN_REPS; r++) {
            const unsigned char zero = 0;
            CL_CHECK(clEnqueueFillBuffer(q, d, &zero, 1, 0, n, 0, NULL, NULL));
            cl_event ev;
            CL_CHECK(clEnqueueNDRangeKernel(q, kern, 2, NULL, g, l, 0, NULL, &ev));
            CL_CHECK(clWaitForEvents(1, &ev));
            cl_ulong t0, t1;
            CL_CHECK(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL));
            CL_CHECK(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL));
            us[r] = (float)(t1 - t0) / 1000.0f;
            CL_CHECK(clReleaseEvent(ev));
        }
        CL_CHECK(clEnqueueReadBuffer(q, d, CL_TRUE, 0, n, got, 0, NULL, NULL));
        twin_report("opencl", name, k, us, got, src, box);
        CL_CHECK(clReleaseKernel(kern));
    }
    CL_CHECK(clReleaseMemObject(s));
    CL_CHECK(clReleaseMemObject(d));
    CL_CHECK(clReleaseProgram(prog));
    CL_CHECK(clReleaseCommandQueue(q));
    CL_CHECK(clReleaseContext(ctx));
    free(text);
    free(src);
    free(box);
    free(got);
    return 0;
}
