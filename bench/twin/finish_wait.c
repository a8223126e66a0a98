/* How long the host waits for one short kernel on a profiling queue, by the
 * way it waits: clFinish, clWaitForEvents on the kernel's event, or polling
 * the event's status (after a clFlush). Wall from before the enqueue to the
 * wait's return, the median of 1600 per way (400 in each of four
 * interleaved rounds), on the first GPU (else the first device). For bench/RESULTS.md: is the driver's
 * clFinish the floor under every one-launch op's wall time?
 * Build: cc -O2 finish_wait.c -lOpenCL -o finish_wait */
#define _POSIX_C_SOURCE 199309L /* clock_gettime */
#include <time.h>

#include "twin_cl.h"

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
    cl_device_id dev;
    char name[256];
    cl_context ctx;
    cl_command_queue q;
    twin_open(&dev, name, sizeof name, &ctx, &q);
    cl_int err;
    /* a kernel of a few microseconds: 4M floats scaled in place */
    const char *src = "__kernel void k(__global float *a) { size_t i = get_global_id(0);"
                      " a[i] = a[i] * 0.5f + 1.0f; }";
    cl_program prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
    CL_CHECK(err);
    CL_CHECK(clBuildProgram(prog, 1, &dev, "", NULL, NULL));
    cl_kernel k = clCreateKernel(prog, "k", &err);
    CL_CHECK(err);
    const size_t n = (size_t)1 << 22;
    cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, n * sizeof(float), NULL, &err);
    CL_CHECK(err);
    CL_CHECK(clSetKernelArg(k, 0, sizeof buf, &buf));
    static double t[WAYS][4 * REPS];
    static double dev_us[4 * REPS];
    int nd = 0;
    for (int round = 0; round < 4; round++)
        for (int way = 0; way < WAYS; way++)
            for (int r = 0; r < REPS; r++) {
                cl_event ev;
                const double t0 = now_us();
                CL_CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &n, NULL, 0, NULL, &ev));
                if (way == 0) {
                    CL_CHECK(clFinish(q));
                } else if (way == 1) {
                    CL_CHECK(clWaitForEvents(1, &ev));
                } else {
                    if (way == 3)
                        CL_CHECK(clFlush(q));
                    cl_int st = CL_QUEUED;
                    while (st != CL_COMPLETE) {
                        CL_CHECK(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st,
                                             &st, NULL));
                        if (st < 0) {
                            fprintf(stderr, "the kernel failed: status %d\n", st);
                            exit(1);
                        }
                    }
                }
                t[way][round * REPS + r] = now_us() - t0;
                if (way == 0) {
                    cl_ulong a, b;
                    CL_CHECK(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof a, &a,
                                                  NULL));
                    CL_CHECK(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof b, &b,
                                                  NULL));
                    dev_us[nd++] = (double)(b - a) / 1e3;
                }
                CL_CHECK(clReleaseEvent(ev));
            }
    qsort(dev_us, (size_t)nd, sizeof(double), cmp);
    printf("device: %s; kernel device us median %.1f\n", name, dev_us[nd / 2]);
    for (int way = 0; way < WAYS; way++) {
        qsort(t[way], 4 * REPS, sizeof(double), cmp);
        printf("%-16s wall us median %.1f  p10 %.1f  p90 %.1f\n", names[way], t[way][2 * REPS],
               t[way][4 * REPS / 10], t[way][4 * REPS * 9 / 10]);
    }
    CL_CHECK(clReleaseMemObject(buf));
    CL_CHECK(clReleaseKernel(k));
    CL_CHECK(clReleaseProgram(prog));
    CL_CHECK(clReleaseCommandQueue(q));
    CL_CHECK(clReleaseContext(ctx));
    return 0;
}
