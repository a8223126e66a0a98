/* clvision — the OpenCL call layer: live-object counting and (in test
 * builds) fault injection. See clwrap.h. */
#define CLV_CLWRAP_IMPL 1
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "runtime/internal.h"

/* ---- live-object registry ----
 * One entry per cl_context made through clCreateContext, plus process-wide
 * totals. Objects are attributed to their context by a query made before
 * the release (CL_MEM_CONTEXT, ...), since handles carry no back pointer. */
enum { K_MEM, K_KERNEL, K_PROGRAM, K_EVENT, K_QUEUE, K_CONTEXT, K_COUNT };

#define REG_MAX 256
static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    cl_context c;
    int64_t n[K_COUNT];
} reg[REG_MAX];
static int64_t totals[K_COUNT];

static void count(cl_context c, int kind, int delta)
{
    pthread_mutex_lock(&reg_lock);
    totals[kind] += delta;
    if (c) {
        int free_slot = -1;
        for (int i = 0; i < REG_MAX; i++) {
            if (reg[i].c == c) {
                reg[i].n[kind] += delta;
                free_slot = -2;
                break;
            }
            if (!reg[i].c && free_slot == -1)
                free_slot = i;
        }
        if (free_slot >= 0 && delta > 0) {
            memset(&reg[free_slot], 0, sizeof reg[free_slot]);
            reg[free_slot].c = c;
            reg[free_slot].n[kind] = delta;
        }
    }
    pthread_mutex_unlock(&reg_lock);
}

/* Drop c's entry once clvision holds c no more (its own context released,
 * or the last retain of an application's context): everything clvision made
 * on it is released by then. An application's context stays alive after
 * that, and two clvision contexts may hold one cl_context, so the entry goes
 * with the last of clvision's references, not with the first release. */
static void forget_context(cl_context c)
{
    pthread_mutex_lock(&reg_lock);
    for (int i = 0; i < REG_MAX; i++)
        if (reg[i].c == c && reg[i].n[K_CONTEXT] <= 0)
            reg[i].c = NULL;
    pthread_mutex_unlock(&reg_lock);
}

static uint64_t clamp0(int64_t v)
{
    return v > 0 ? (uint64_t)v : 0;
}

void clv__live_objects_of(cl_context c, uint64_t *mem, uint64_t *kernels, uint64_t *programs,
                          uint64_t *events, uint64_t *queues)
{
    int64_t n[K_COUNT] = {0};
    pthread_mutex_lock(&reg_lock);
    for (int i = 0; c && i < REG_MAX; i++)
        if (reg[i].c == c)
            memcpy(n, reg[i].n, sizeof n);
    pthread_mutex_unlock(&reg_lock);
    *mem = clamp0(n[K_MEM]);
    *kernels = clamp0(n[K_KERNEL]);
    *programs = clamp0(n[K_PROGRAM]);
    *events = clamp0(n[K_EVENT]);
    *queues = clamp0(n[K_QUEUE]);
}

CLV_API void clv_debug_live_objects(clv_live_objects *out)
{
    if (!out)
        return;
    pthread_mutex_lock(&reg_lock);
    out->mem_objects = clamp0(totals[K_MEM]);
    out->kernels = clamp0(totals[K_KERNEL]);
    out->programs = clamp0(totals[K_PROGRAM]);
    out->events = clamp0(totals[K_EVENT]);
    out->queues = clamp0(totals[K_QUEUE]);
    out->contexts = clamp0(totals[K_CONTEXT]);
    pthread_mutex_unlock(&reg_lock);
}

static cl_context queue_context(cl_command_queue q)
{
    cl_context c = NULL;
    if (!q || clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof c, &c, NULL) != CL_SUCCESS)
        return NULL;
    return c;
}

static void count_event(cl_command_queue q, cl_int err, const cl_event *ev)
{
    if (err == CL_SUCCESS && ev && *ev)
        count(queue_context(q), K_EVENT, +1);
}

/* ---- fault injection ---- */
static uint64_t calls;      /* OpenCL calls that could fail, since start */
static uint64_t fail_at;    /* 0: never; N: the Nth call fails */
static const char *injected = "";

#ifdef CLV_FAULT_INJECTION
/* 1 when this call is the one to fail; records its name. */
static int inject(const char *name)
{
    uint64_t n = __atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
    if (n == __atomic_load_n(&fail_at, __ATOMIC_RELAXED)) {
        __atomic_store_n(&injected, name, __ATOMIC_RELAXED);
        return 1;
    }
    return 0;
}
#define INJECT(name, code)                                                                     \
    do {                                                                                       \
        if (inject(name))                                                                      \
            return (code);                                                                     \
    } while (0)
#define INJECT_RET(name, code, errp)                                                           \
    do {                                                                                       \
        if (inject(name)) {                                                                    \
            if (errp)                                                                          \
                *(errp) = (code);                                                              \
            return NULL;                                                                       \
        }                                                                                      \
    } while (0)
#else
#define INJECT(name, code) __atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED)
#define INJECT_RET(name, code, errp) __atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED)
#endif

/* Planning without running (clv_op_supported): while set on this thread,
 * every command that would go to a queue succeeds without being enqueued
 * (event outputs NULL, reads fill the host memory with zeros), kernel
 * arguments are not set and waits return at once. Queries, allocations and
 * program builds stay real, so every check an operation makes runs. */
static _Thread_local int dry_run;

void clv__set_dry_run(int on) { dry_run = on; }
int clv__dry_run(void) { return dry_run; }

#define DRY(ev)                                                                                \
    do {                                                                                       \
        if (dry_run) {                                                                         \
            if (ev)                                                                            \
                *(cl_event *)(ev) = NULL;                                                      \
            return CL_SUCCESS;                                                                 \
        }                                                                                      \
    } while (0)

CLV_API clv_status clv_debug_fail_at(uint64_t n)
{
#ifdef CLV_FAULT_INJECTION
    __atomic_store_n(&fail_at, n, __ATOMIC_RELAXED);
    __atomic_store_n(&injected, "", __ATOMIC_RELAXED);
    return CLV_OK;
#else
    (void)fail_at;
    return n == 0 ? CLV_OK : CLV_ERROR_UNSUPPORTED;
#endif
}

CLV_API uint64_t clv_debug_cl_calls(void)
{
    return __atomic_load_n(&calls, __ATOMIC_RELAXED);
}

CLV_API const char *clv_debug_injected_call(void)
{
    return __atomic_load_n(&injected, __ATOMIC_RELAXED);
}

/* ---- the wrappers ---- */
#define OOM CL_OUT_OF_HOST_MEMORY
#define OOR CL_OUT_OF_RESOURCES

cl_int clv__clGetPlatformIDs(cl_uint n, cl_platform_id *p, cl_uint *np)
{
    INJECT("clGetPlatformIDs", OOM);
    return clGetPlatformIDs(n, p, np);
}

cl_int clv__clGetPlatformInfo(cl_platform_id p, cl_platform_info w, size_t s, void *v, size_t *r)
{
    INJECT("clGetPlatformInfo", OOM);
    return clGetPlatformInfo(p, w, s, v, r);
}

cl_int clv__clGetDeviceIDs(cl_platform_id p, cl_device_type t, cl_uint n, cl_device_id *d,
                           cl_uint *nd)
{
    INJECT("clGetDeviceIDs", OOM);
    return clGetDeviceIDs(p, t, n, d, nd);
}

cl_int clv__clGetDeviceInfo(cl_device_id d, cl_device_info w, size_t s, void *v, size_t *r)
{
    INJECT("clGetDeviceInfo", OOR);
    return clGetDeviceInfo(d, w, s, v, r);
}

cl_context clv__clCreateContext(const cl_context_properties *props, cl_uint n,
                                const cl_device_id *d,
                                void(CL_CALLBACK *fn)(const char *, const void *, size_t, void *),
                                void *user, cl_int *err)
{
    INJECT_RET("clCreateContext", OOM, err);
    cl_context c = clCreateContext(props, n, d, fn, user, err);
    if (c)
        count(c, K_CONTEXT, +1);
    return c;
}

cl_int clv__clReleaseContext(cl_context c)
{
    cl_int err = clReleaseContext(c);
    if (err == CL_SUCCESS) {
        count(c, K_CONTEXT, -1);
        forget_context(c);
    }
    return err;
}

/* Retains of the application's objects (clv_context_create_cl,
 * clv_image_wrap_buffer) count as live objects until clvision releases them. */
cl_int clv__clRetainContext(cl_context c)
{
    INJECT("clRetainContext", OOM);
    cl_int err = clRetainContext(c);
    if (err == CL_SUCCESS)
        count(c, K_CONTEXT, +1);
    return err;
}

cl_int clv__clGetContextInfo(cl_context c, cl_context_info w, size_t s, void *v, size_t *r)
{
    INJECT("clGetContextInfo", OOR);
    return clGetContextInfo(c, w, s, v, r);
}

cl_int clv__clRetainDevice(cl_device_id d)
{
    INJECT("clRetainDevice", OOM);
    return clRetainDevice(d);
}

cl_int clv__clReleaseDevice(cl_device_id d) { return clReleaseDevice(d); }

cl_command_queue clv__clCreateCommandQueue(cl_context c, cl_device_id d,
                                           cl_command_queue_properties p, cl_int *err)
{
    INJECT_RET("clCreateCommandQueue", OOM, err);
    cl_command_queue q = clCreateCommandQueue(c, d, p, err);
    if (q)
        count(c, K_QUEUE, +1);
    return q;
}

cl_int clv__clReleaseCommandQueue(cl_command_queue q)
{
    cl_context c = queue_context(q);
    cl_int err = clReleaseCommandQueue(q);
    if (err == CL_SUCCESS)
        count(c, K_QUEUE, -1);
    return err;
}

cl_int clv__clRetainCommandQueue(cl_command_queue q)
{
    INJECT("clRetainCommandQueue", OOM);
    cl_int err = clRetainCommandQueue(q);
    if (err == CL_SUCCESS)
        count(queue_context(q), K_QUEUE, +1);
    return err;
}

cl_int clv__clGetCommandQueueInfo(cl_command_queue q, cl_command_queue_info w, size_t s, void *v,
                                  size_t *r)
{
    INJECT("clGetCommandQueueInfo", OOR);
    return clGetCommandQueueInfo(q, w, s, v, r);
}

static cl_context mem_context(cl_mem m)
{
    cl_context c = NULL;
    if (!m || clGetMemObjectInfo(m, CL_MEM_CONTEXT, sizeof c, &c, NULL) != CL_SUCCESS)
        return NULL;
    return c;
}

cl_int clv__clRetainMemObject(cl_mem m)
{
    INJECT("clRetainMemObject", OOM);
    cl_int err = clRetainMemObject(m);
    if (err == CL_SUCCESS)
        count(mem_context(m), K_MEM, +1);
    return err;
}

cl_mem clv__clCreateSubBuffer(cl_mem m, cl_mem_flags f, cl_buffer_create_type t, const void *info,
                              cl_int *err)
{
    INJECT_RET("clCreateSubBuffer", CL_MEM_OBJECT_ALLOCATION_FAILURE, err);
    cl_mem sub = clCreateSubBuffer(m, f, t, info, err);
    if (sub)
        count(mem_context(m), K_MEM, +1);
    return sub;
}

cl_mem clv__clCreateBuffer(cl_context c, cl_mem_flags f, size_t size, void *host, cl_int *err)
{
    INJECT_RET("clCreateBuffer", CL_MEM_OBJECT_ALLOCATION_FAILURE, err);
    cl_mem m = clCreateBuffer(c, f, size, host, err);
    if (m)
        count(c, K_MEM, +1);
    return m;
}

cl_int clv__clReleaseMemObject(cl_mem m)
{
    cl_context c = mem_context(m);
    cl_int err = clReleaseMemObject(m);
    if (err == CL_SUCCESS)
        count(c, K_MEM, -1);
    return err;
}

cl_int clv__clGetMemObjectInfo(cl_mem m, cl_mem_info w, size_t s, void *v, size_t *r)
{
    INJECT("clGetMemObjectInfo", OOR);
    return clGetMemObjectInfo(m, w, s, v, r);
}

cl_program clv__clCreateProgramWithSource(cl_context c, cl_uint n, const char **str,
                                          const size_t *len, cl_int *err)
{
    INJECT_RET("clCreateProgramWithSource", OOM, err);
    cl_program p = clCreateProgramWithSource(c, n, str, len, err);
    if (p)
        count(c, K_PROGRAM, +1);
    return p;
}

cl_program clv__clCreateProgramWithBinary(cl_context c, cl_uint n, const cl_device_id *d,
                                          const size_t *len, const unsigned char **bin,
                                          cl_int *bstatus, cl_int *err)
{
    INJECT_RET("clCreateProgramWithBinary", OOM, err);
    cl_program p = clCreateProgramWithBinary(c, n, d, len, bin, bstatus, err);
    if (p)
        count(c, K_PROGRAM, +1);
    return p;
}

cl_int clv__clBuildProgram(cl_program p, cl_uint n, const cl_device_id *d, const char *opts,
                           void(CL_CALLBACK *fn)(cl_program, void *), void *user)
{
    INJECT("clBuildProgram", OOM);
    return clBuildProgram(p, n, d, opts, fn, user);
}

cl_int clv__clGetProgramInfo(cl_program p, cl_program_info w, size_t s, void *v, size_t *r)
{
    INJECT("clGetProgramInfo", OOR);
    return clGetProgramInfo(p, w, s, v, r);
}

cl_int clv__clGetProgramBuildInfo(cl_program p, cl_device_id d, cl_program_build_info w,
                                  size_t s, void *v, size_t *r)
{
    INJECT("clGetProgramBuildInfo", OOR);
    return clGetProgramBuildInfo(p, d, w, s, v, r);
}

static cl_context program_context(cl_program p)
{
    cl_context c = NULL;
    if (!p || clGetProgramInfo(p, CL_PROGRAM_CONTEXT, sizeof c, &c, NULL) != CL_SUCCESS)
        return NULL;
    return c;
}

cl_int clv__clReleaseProgram(cl_program p)
{
    cl_context c = program_context(p);
    cl_int err = clReleaseProgram(p);
    if (err == CL_SUCCESS)
        count(c, K_PROGRAM, -1);
    return err;
}

cl_kernel clv__clCreateKernel(cl_program p, const char *name, cl_int *err)
{
    INJECT_RET("clCreateKernel", OOM, err);
    cl_kernel k = clCreateKernel(p, name, err);
    if (k)
        count(program_context(p), K_KERNEL, +1);
    return k;
}

cl_int clv__clReleaseKernel(cl_kernel k)
{
    cl_context c = NULL;
    if (k && clGetKernelInfo(k, CL_KERNEL_CONTEXT, sizeof c, &c, NULL) != CL_SUCCESS)
        c = NULL;
    cl_int err = clReleaseKernel(k);
    if (err == CL_SUCCESS)
        count(c, K_KERNEL, -1);
    return err;
}

cl_int clv__clSetKernelArg(cl_kernel k, cl_uint i, size_t s, const void *v)
{
    if (dry_run)
        return CL_SUCCESS;
    INJECT("clSetKernelArg", OOR);
    return clSetKernelArg(k, i, s, v);
}

cl_int clv__clGetKernelInfo(cl_kernel k, cl_kernel_info w, size_t s, void *v, size_t *r)
{
    INJECT("clGetKernelInfo", OOR);
    return clGetKernelInfo(k, w, s, v, r);
}

cl_int clv__clGetKernelWorkGroupInfo(cl_kernel k, cl_device_id d, cl_kernel_work_group_info w,
                                     size_t s, void *v, size_t *r)
{
    INJECT("clGetKernelWorkGroupInfo", OOR);
    return clGetKernelWorkGroupInfo(k, d, w, s, v, r);
}

cl_int clv__clEnqueueNDRangeKernel(cl_command_queue q, cl_kernel k, cl_uint dims,
                                   const size_t *off, const size_t *g, const size_t *l,
                                   cl_uint nw, const cl_event *w, cl_event *ev)
{
    DRY(ev);
    INJECT("clEnqueueNDRangeKernel", OOR);
    cl_int err = clEnqueueNDRangeKernel(q, k, dims, off, g, l, nw, w, ev);
    count_event(q, err, ev);
    return err;
}

cl_int clv__clEnqueueReadBuffer(cl_command_queue q, cl_mem m, cl_bool b, size_t off, size_t n,
                                void *p, cl_uint nw, const cl_event *w, cl_event *ev)
{
    if (dry_run && p)
        memset(p, 0, n);
    DRY(ev);
    INJECT("clEnqueueReadBuffer", OOR);
    cl_int err = clEnqueueReadBuffer(q, m, b, off, n, p, nw, w, ev);
    count_event(q, err, ev);
    return err;
}

cl_int clv__clEnqueueWriteBuffer(cl_command_queue q, cl_mem m, cl_bool b, size_t off, size_t n,
                                 const void *p, cl_uint nw, const cl_event *w, cl_event *ev)
{
    DRY(ev);
    INJECT("clEnqueueWriteBuffer", OOR);
    cl_int err = clEnqueueWriteBuffer(q, m, b, off, n, p, nw, w, ev);
    count_event(q, err, ev);
    return err;
}

cl_int clv__clEnqueueReadBufferRect(cl_command_queue q, cl_mem m, cl_bool b, const size_t *bo,
                                    const size_t *ho, const size_t *r, size_t brp, size_t bsp,
                                    size_t hrp, size_t hsp, void *p, cl_uint nw,
                                    const cl_event *w, cl_event *ev)
{
    if (dry_run && p && r)
        for (size_t z = 0; z < r[2]; z++)
            for (size_t y = 0; y < r[1]; y++)
                memset((char *)p + ho[0] + (ho[1] + y) * (hrp ? hrp : r[0]) +
                           (ho[2] + z) * (hsp ? hsp : (hrp ? hrp : r[0]) * r[1]),
                       0, r[0]);
    DRY(ev);
    INJECT("clEnqueueReadBufferRect", OOR);
    cl_int err = clEnqueueReadBufferRect(q, m, b, bo, ho, r, brp, bsp, hrp, hsp, p, nw, w, ev);
    count_event(q, err, ev);
    return err;
}

cl_int clv__clEnqueueWriteBufferRect(cl_command_queue q, cl_mem m, cl_bool b, const size_t *bo,
                                     const size_t *ho, const size_t *r, size_t brp, size_t bsp,
                                     size_t hrp, size_t hsp, const void *p, cl_uint nw,
                                     const cl_event *w, cl_event *ev)
{
    DRY(ev);
    INJECT("clEnqueueWriteBufferRect", OOR);
    cl_int err = clEnqueueWriteBufferRect(q, m, b, bo, ho, r, brp, bsp, hrp, hsp, p, nw, w, ev);
    count_event(q, err, ev);
    return err;
}

cl_int clv__clEnqueueFillBuffer(cl_command_queue q, cl_mem m, const void *pat, size_t ps,
                                size_t off, size_t n, cl_uint nw, const cl_event *w,
                                cl_event *ev)
{
    DRY(ev);
    INJECT("clEnqueueFillBuffer", OOR);
    cl_int err = clEnqueueFillBuffer(q, m, pat, ps, off, n, nw, w, ev);
    count_event(q, err, ev);
    return err;
}

cl_int clv__clEnqueueCopyBuffer(cl_command_queue q, cl_mem s, cl_mem d, size_t so, size_t dof,
                                size_t n, cl_uint nw, const cl_event *w, cl_event *ev)
{
    DRY(ev);
    INJECT("clEnqueueCopyBuffer", OOR);
    cl_int err = clEnqueueCopyBuffer(q, s, d, so, dof, n, nw, w, ev);
    count_event(q, err, ev);
    return err;
}

cl_int clv__clEnqueueCopyBufferRect(cl_command_queue q, cl_mem s, cl_mem d, const size_t *so,
                                    const size_t *dof, const size_t *r, size_t srp, size_t ssp,
                                    size_t drp, size_t dsp, cl_uint nw, const cl_event *w,
                                    cl_event *ev)
{
    DRY(ev);
    INJECT("clEnqueueCopyBufferRect", OOR);
    cl_int err = clEnqueueCopyBufferRect(q, s, d, so, dof, r, srp, ssp, drp, dsp, nw, w, ev);
    count_event(q, err, ev);
    return err;
}

void *clv__clEnqueueMapBuffer(cl_command_queue q, cl_mem m, cl_bool blocking, cl_map_flags f,
                              size_t off, size_t size, cl_uint nw, const cl_event *w,
                              cl_event *ev, cl_int *err)
{
    cl_int own_err;
    if (!err)
        err = &own_err;
    INJECT_RET("clEnqueueMapBuffer", CL_MAP_FAILURE, err);
    void *p = clEnqueueMapBuffer(q, m, blocking, f, off, size, nw, w, ev, err);
    count_event(q, *err, ev);
    return p;
}

cl_int clv__clEnqueueUnmapMemObject(cl_command_queue q, cl_mem m, void *p, cl_uint nw,
                                    const cl_event *w, cl_event *ev)
{
    INJECT("clEnqueueUnmapMemObject", OOR);
    cl_int err = clEnqueueUnmapMemObject(q, m, p, nw, w, ev);
    count_event(q, err, ev);
    return err;
}

cl_int clv__clEnqueueMarkerWithWaitList(cl_command_queue q, cl_uint nw, const cl_event *w,
                                        cl_event *ev)
{
    DRY(ev);
    INJECT("clEnqueueMarkerWithWaitList", OOR);
    cl_int err = clEnqueueMarkerWithWaitList(q, nw, w, ev);
    count_event(q, err, ev);
    return err;
}

cl_int clv__clFinish(cl_command_queue q)
{
    DRY((cl_event *)NULL);
    INJECT("clFinish", OOR);
    return clFinish(q);
}

cl_int clv__clFlush(cl_command_queue q)
{
    DRY((cl_event *)NULL);
    INJECT("clFlush", OOR);
    return clFlush(q);
}

cl_int clv__clWaitForEvents(cl_uint n, const cl_event *ev)
{
    DRY((cl_event *)NULL);
    INJECT("clWaitForEvents", OOR);
    return clWaitForEvents(n, ev);
}

cl_int clv__clGetEventProfilingInfo(cl_event e, cl_profiling_info w, size_t s, void *v,
                                    size_t *r)
{
    INJECT("clGetEventProfilingInfo", OOR);
    return clGetEventProfilingInfo(e, w, s, v, r);
}

static cl_context event_context(cl_event e)
{
    cl_context c = NULL;
    if (!e || clGetEventInfo(e, CL_EVENT_CONTEXT, sizeof c, &c, NULL) != CL_SUCCESS)
        return NULL;
    return c;
}

cl_int clv__clGetEventInfo(cl_event e, cl_event_info what, size_t size, void *value,
                           size_t *ret)
{
    INJECT("clGetEventInfo", OOR);
    return clGetEventInfo(e, what, size, value, ret);
}

cl_int clv__clEnqueueBarrierWithWaitList(cl_command_queue q, cl_uint nw, const cl_event *w,
                                         cl_event *ev)
{
    DRY(ev);
    INJECT("clEnqueueBarrierWithWaitList", OOR);
    cl_int err = clEnqueueBarrierWithWaitList(q, nw, w, ev);
    count_event(q, err, ev);
    return err;
}

void clv__disown_event(cl_event e)
{
    if (e)
        count(event_context(e), K_EVENT, -1);
}

cl_int clv__clRetainEvent(cl_event e)
{
    cl_int err = clRetainEvent(e);
    if (err == CL_SUCCESS)
        count(event_context(e), K_EVENT, +1);
    return err;
}

cl_int clv__clReleaseEvent(cl_event e)
{
    cl_context c = event_context(e);
    cl_int err = clReleaseEvent(e);
    if (err == CL_SUCCESS)
        count(c, K_EVENT, -1);
    return err;
}
