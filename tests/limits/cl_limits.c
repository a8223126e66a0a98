/* LD_PRELOAD interposer that makes an OpenCL device look (and act) smaller,
 * so the op tests exercise the work-group and local-memory fitting code on
 * PoCL. Limits come from the environment; unset means "leave as is":
 *   CLV_LIMIT_LOCAL_MEM  bytes of local memory the device reports
 *                        (CL_DEVICE_LOCAL_MEM_SIZE); a launch whose kernel
 *                        needs more (CL_KERNEL_LOCAL_MEM_SIZE with its
 *                        __local arguments) fails with CL_OUT_OF_RESOURCES,
 *                        as it would on such a device.
 *   CLV_LIMIT_WG         work-items per group (CL_DEVICE_MAX_WORK_GROUP_SIZE,
 *                        CL_DEVICE_MAX_WORK_ITEM_SIZES, CL_KERNEL_WORK_GROUP_SIZE);
 *                        a larger group fails with CL_INVALID_WORK_GROUP_SIZE.
 * PoCL's own POCL_MAX_WORK_GROUP_SIZE lowers the real work-group limit; this
 * file is what lowers local memory. Test-only: never installed. */
#define _GNU_SOURCE
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CL/cl.h>

static unsigned long long env_limit(const char *name)
{
    const char *s = getenv(name);
    if (!s || !*s)
        return 0;
    char *end = NULL;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end != '\0' || v == 0) {
        fprintf(stderr, "cl_limits: %s must be a positive integer (got '%s')\n", name, s);
        abort();
    }
    return v;
}

static void *next_fn(const char *name)
{
    void *f = dlsym(RTLD_NEXT, name);
    if (!f) {
        fprintf(stderr, "cl_limits: dlsym(RTLD_NEXT, %s) failed: %s\n", name, dlerror());
        abort();
    }
    return f;
}

typedef cl_int (*dev_info_fn)(cl_device_id, cl_device_info, size_t, void *, size_t *);
typedef cl_int (*wg_info_fn)(cl_kernel, cl_device_id, cl_kernel_work_group_info, size_t, void *,
                             size_t *);
typedef cl_int (*kernel_info_fn)(cl_kernel, cl_kernel_info, size_t, void *, size_t *);
typedef cl_int (*queue_info_fn)(cl_command_queue, cl_command_queue_info, size_t, void *,
                                size_t *);
typedef cl_int (*enqueue_fn)(cl_command_queue, cl_kernel, cl_uint, const size_t *, const size_t *,
                             const size_t *, cl_uint, const cl_event *, cl_event *);

CL_API_ENTRY cl_int CL_API_CALL clGetDeviceInfo(cl_device_id dev, cl_device_info what,
                                                size_t size, void *value, size_t *ret)
{
    static dev_info_fn real;
    if (!real)
        real = (dev_info_fn)next_fn("clGetDeviceInfo");
    cl_int err = real(dev, what, size, value, ret);
    if (err != CL_SUCCESS || !value)
        return err;
    const unsigned long long lm = env_limit("CLV_LIMIT_LOCAL_MEM");
    const unsigned long long wg = env_limit("CLV_LIMIT_WG");
    if (what == CL_DEVICE_LOCAL_MEM_SIZE && lm && size >= sizeof(cl_ulong)) {
        cl_ulong *v = value;
        if (*v > lm)
            *v = lm;
    } else if (what == CL_DEVICE_MAX_WORK_GROUP_SIZE && wg && size >= sizeof(size_t)) {
        size_t *v = value;
        if (*v > wg)
            *v = (size_t)wg;
    } else if (what == CL_DEVICE_MAX_WORK_ITEM_SIZES && wg) {
        size_t *v = value;
        for (size_t i = 0; i < size / sizeof(size_t); i++)
            if (v[i] > wg)
                v[i] = (size_t)wg;
    }
    return err;
}

CL_API_ENTRY cl_int CL_API_CALL clGetKernelWorkGroupInfo(cl_kernel k, cl_device_id dev,
                                                         cl_kernel_work_group_info what,
                                                         size_t size, void *value, size_t *ret)
{
    static wg_info_fn real;
    if (!real)
        real = (wg_info_fn)next_fn("clGetKernelWorkGroupInfo");
    cl_int err = real(k, dev, what, size, value, ret);
    if (err != CL_SUCCESS || !value)
        return err;
    const unsigned long long wg = env_limit("CLV_LIMIT_WG");
    if (what == CL_KERNEL_WORK_GROUP_SIZE && wg && size >= sizeof(size_t)) {
        size_t *v = value;
        if (*v > wg)
            *v = (size_t)wg;
    }
    return err;
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueNDRangeKernel(cl_command_queue q, cl_kernel k,
                                                       cl_uint dims, const size_t *offset,
                                                       const size_t *global, const size_t *local,
                                                       cl_uint nwait, const cl_event *wait,
                                                       cl_event *ev)
{
    static enqueue_fn real;
    static wg_info_fn wg_info;
    static queue_info_fn queue_info;
    if (!real) {
        real = (enqueue_fn)next_fn("clEnqueueNDRangeKernel");
        wg_info = (wg_info_fn)next_fn("clGetKernelWorkGroupInfo");
        queue_info = (queue_info_fn)next_fn("clGetCommandQueueInfo");
    }
    const unsigned long long lm = env_limit("CLV_LIMIT_LOCAL_MEM");
    const unsigned long long wg = env_limit("CLV_LIMIT_WG");
    if (local && wg) {
        size_t total = 1;
        for (cl_uint d = 0; d < dims; d++)
            total *= local[d];
        if (total > wg)
            return CL_INVALID_WORK_GROUP_SIZE;
    }
    if (lm) {
        cl_device_id dev = NULL;
        cl_ulong used = 0;
        cl_int err = queue_info(q, CL_QUEUE_DEVICE, sizeof dev, &dev, NULL);
        if (err == CL_SUCCESS)
            err = wg_info(k, dev, CL_KERNEL_LOCAL_MEM_SIZE, sizeof used, &used, NULL);
        if (err != CL_SUCCESS)
            return err;
        if (used > lm)
            return CL_OUT_OF_RESOURCES;
    }
    return real(q, k, dims, offset, global, local, nwait, wait, ev);
}
