/* How long the host waits for one short kernel on a profiling queue, by the
 * way it waits: clFinish, clWaitForEvents on the kernel's event, or polling
 * the event's status (after a clFlush). Wall from before the enqueue to the
 * wait's return, medians of 400 per way, four interleaved rounds, on the
 * first GPU (else the first device). For bench/RESULTS.md: is the driver's
 * clFinish the floor under every one-launch op's wall time?
 * Build: cc -O2 finish_wait.c -lOpenCL -o finish_wait */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define CHECK(e)                                                                               \
    do {                                                                                       \
        cl_int err_ = (e);                                                                     \
        if (err_ != CL_SUCCESS) {                                                              \
            fprintf(stderr, "%s:%d: %s = %d\n", __FILE__, __LINE__, #e, err_);                 \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

enum { REPS = 400, WAYS = 4 };
static const char *names[WAYS] = {"clFinish", "clWaitForEvents", "poll status", "flush+poll"};

int main(void)
{
    cl_platform_id plats[8];
    cl_uint np = 0;
    CHECK(clGetPlatformIDs(8, plats, &np));
    cl_device_id dev = NULL;
    for (cl_uint i = 0; i < np && !dev; i++)
        if (clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_GPU, 1, &dev, NULL) != CL_SUCCESS)
            dev = NULL;
    if (!dev)
        CHECK(clGetDeviceIDs(plats[0], CL_DEVICE_TYPE_ALL, 1, &dev, NULL));
    char name[256];
    CHECK(clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name, name, NULL));
    cl_int err;
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    CHECK(err);
    cl_command_queue q = clCreateCommandQueue(ctx, dev, CL_QUEUE_PROFILING_ENABLE, &err);
    CHECK(err);
    /* a kernel of a few microseconds: 4M floats scaled in place */
    const char *src = "__kernel void k(__global float *a) { size_t i = get_global_id(0);"
                      " a[i] = a[i] * 0.5f + 1.0f; }";
    cl_program prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
    CHECK(err);
    CHECK(clBuildProgram(prog, 1, &dev, "", NULL, NULL));
    cl_kernel k = clCreateKernel(prog, "k", &err);
    CHECK(err);
    const size_t n = (size_t)1 << 22;
    cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, n * sizeof(float), NULL, &err);
    CHECK(err);
    CHECK(clSetKernelArg(k, 0, sizeof buf, &buf));
    static double t[WAYS][4 * REPS];
    static double dev_us[4 * REPS];
    int nt = 0, nd = 0;
    for (int round = 0; round < 4; round++)
        for (int way = 0; way < WAYS; way++)
            for (int r = 0; r < REPS; r++) {
                cl_event ev;
                const double t0 = now_us();
                CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &n, NULL, 0, NULL, &ev));
                if (way == 0) {
                    CHECK(clFinish(q));
                } else if (way == 1) {
                    CHECK(clWaitForEvents(1, &ev));
                } else {
                    if (way == 3)
                        CHECK(clFlush(q));
                    cl_int st = CL_QUEUED;
                    while (st != CL_COMPLETE) {
                        CHECK(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st,
                                             &st, NULL));
                        if (st < 0)
                            exit(2);
                    }
                }
                t[way][round * REPS + r] = now_us() - t0;
                if (way == 0) {
                    cl_ulong a, b;
                    CHECK(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof a, &a,
                                                  NULL));
                    CHECK(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof b, &b,
                                                  NULL));
                    dev_us[nd++] = (double)(b - a) / 1e3;
                }
                CHECK(clReleaseEvent(ev));
                (void)nt;
            }
    qsort(dev_us, (size_t)nd, sizeof(double), cmp);
    printf("device: %s; kernel device us median %.1f\n", name, dev_us[nd / 2]);
    for (int way = 0; way < WAYS; way++) {
        qsort(t[way], 4 * REPS, sizeof(double), cmp);
        printf("%-16s wall us median %.1f  p10 %.1f  p90 %.1f\n", names[way], t[way][2 * REPS],
               t[way][4 * REPS / 10], t[way][4 * REPS * 9 / 10]);
    }
    CHECK(clReleaseMemObject(buf));
    CHECK(clReleaseKernel(k));
    CHECK(clReleaseProgram(prog));
    CHECK(clReleaseCommandQueue(q));
    CHECK(clReleaseContext(ctx));
    return 0;
}
