/* bench/twin: what the OpenCL hosts there share (twin_opencl.c,
 * finish_wait.c): a cl_int check that exits, the device they run on, its
 * context and a profiling queue. */
#ifndef TWIN_CL_H
#define TWIN_CL_H
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>

#define CL_CHECK(x)                                                                                \
    do {                                                                                           \
        cl_int e_ = (x);                                                                           \
        if (e_ != CL_SUCCESS) {                                                                    \
            fprintf(stderr, "%s: %d\n", #x, (int)e_);                                              \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* The first GPU of any platform, else the first device of any type. */
static inline cl_device_id twin_pick_device(void)
{
    cl_platform_id pl[16];
    cl_uint np = 0;
    CL_CHECK(clGetPlatformIDs(16, pl, &np));
    static const cl_device_type kinds[] = {CL_DEVICE_TYPE_GPU, CL_DEVICE_TYPE_ALL};
    for (int t = 0; t < 2; t++)
        for (cl_uint i = 0; i < np; i++) {
            cl_device_id dev;
            cl_uint nd = 0;
            if (clGetDeviceIDs(pl[i], kinds[t], 1, &dev, &nd) == CL_SUCCESS && nd > 0)
                return dev;
        }
    fprintf(stderr, "no OpenCL device\n");
    exit(1);
}

/* twin_pick_device's device, its name (name_size bytes at most), a context
 * on it and a profiling queue. */
static inline void twin_open(cl_device_id *dev, char *name, size_t name_size, cl_context *ctx,
                             cl_command_queue *q)
{
    cl_int err;
    *dev = twin_pick_device();
    CL_CHECK(clGetDeviceInfo(*dev, CL_DEVICE_NAME, name_size, name, NULL));
    *ctx = clCreateContext(NULL, 1, dev, NULL, NULL, &err);
    CL_CHECK(err);
    *q = clCreateCommandQueue(*ctx, *dev, CL_QUEUE_PROFILING_ENABLE, &err);
    CL_CHECK(err);
}
#endif
