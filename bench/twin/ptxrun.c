/* ptxrun: launch one kernel of the PTX that NVIDIA's OpenCL driver built
 * (bench/ptxinfo.py --dump writes it from clvision's program cache) through
 * the CUDA driver API, so that CUDA's tools (Nsight Compute) can look at
 * exactly the code the OpenCL path runs, and time it with CUDA events.
 *
 * Usage: ptxrun PTX KERNEL GX GY LX LY REPS ARG...
 *   GX GY: work-items (OpenCL's global size, a multiple of LX LY);
 *   LX LY: work-group shape; REPS: timed launches (median printed);
 *   ARG, in the kernel's order: bN (a device buffer of N bytes, random),
 *   fPATH (a device buffer holding the file's bytes), iV (an int), xV (a
 *   float).
 * Build: cc -O2 -I/usr/local/cuda/include ptxrun.c -o ptxrun -lcuda */
#include <cuda.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "twin_util.h"

#define CK(call)                                                                                \
    do {                                                                                        \
        CUresult r_ = (call);                                                                   \
        if (r_ != CUDA_SUCCESS) {                                                               \
            const char *s_ = NULL;                                                              \
            cuGetErrorString(r_, &s_);                                                          \
            fprintf(stderr, "ptxrun: %s: %s (%d)\n", #call, s_ ? s_ : "?", (int)r_);            \
            exit(1);                                                                            \
        }                                                                                       \
    } while (0)

int main(int argc, char **argv)
{
    if (argc < 8) {
        fprintf(stderr, "usage: ptxrun PTX KERNEL GX GY LX LY REPS ARG...\n");
        return 2;
    }
    size_t n;
    char *ptx = twin_read_file(argv[1], &n);
    const unsigned gx = (unsigned)atoi(argv[3]), gy = (unsigned)atoi(argv[4]);
    const unsigned lx = (unsigned)atoi(argv[5]), ly = (unsigned)atoi(argv[6]);
    const int reps = atoi(argv[7]);
    const int nargs = argc - 8;
    CK(cuInit(0));
    CUdevice dev;
    CK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CK(cuCtxSetCurrent(ctx));
    CUmodule mod;
    CK(cuModuleLoadData(&mod, ptx));
    CUfunction fn;
    CK(cuModuleGetFunction(&fn, mod, argv[2]));
    void **params = calloc((size_t)nargs, sizeof *params);
    CUdeviceptr *ptrs = calloc((size_t)nargs, sizeof *ptrs);
    int *ints = calloc((size_t)nargs, sizeof *ints);
    float *floats = calloc((size_t)nargs, sizeof *floats);
    for (int i = 0; i < nargs; i++) {
        const char *a = argv[8 + i];
        if (a[0] == 'i') {
            ints[i] = atoi(a + 1);
            params[i] = &ints[i];
        } else if (a[0] == 'x') {
            floats[i] = strtof(a + 1, NULL);
            params[i] = &floats[i];
        } else if (a[0] == 'b' || a[0] == 'f') {
            size_t bytes;
            unsigned char *host;
            if (a[0] == 'b') {
                bytes = (size_t)strtoull(a + 1, NULL, 10);
                host = malloc(bytes);
                uint32_t s = 12345u + (uint32_t)i;
                for (size_t k = 0; k < bytes; k++) {
                    s = s * 1664525u + 1013904223u;
                    host[k] = (unsigned char)(s >> 24);
                }
            } else {
                host = (unsigned char *)twin_read_file(a + 1, &bytes);
            }
            CK(cuMemAlloc(&ptrs[i], bytes));
            CK(cuMemcpyHtoD(ptrs[i], host, bytes));
            free(host);
            params[i] = &ptrs[i];
        } else {
            fprintf(stderr, "ptxrun: argument %s: want bN, fPATH, iV or xV\n", a);
            return 2;
        }
    }
    CUevent e0, e1;
    CK(cuEventCreate(&e0, CU_EVENT_DEFAULT));
    CK(cuEventCreate(&e1, CU_EVENT_DEFAULT));
    float *ms = calloc((size_t)reps + 1, sizeof *ms);
    for (int r = -3; r < reps; r++) {
        CK(cuEventRecord(e0, 0));
        CK(cuLaunchKernel(fn, gx / lx, gy / ly, 1, lx, ly, 1, 0, 0, params, NULL));
        CK(cuEventRecord(e1, 0));
        CK(cuEventSynchronize(e1));
        if (r >= 0)
            CK(cuEventElapsedTime(&ms[r], e0, e1));
    }
    int regs = 0;
    CK(cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, fn));
    const float med = twin_median(ms, reps); /* sorts ms: ms[0] is the least */
    printf("ptxrun %s %ux%u local %ux%u regs %d: median %.1f us, min %.1f us (%d reps)\n",
           argv[2], gx, gy, lx, ly, regs, 1000.0 * med, 1000.0 * ms[0], reps);
    for (int i = 0; i < nargs; i++)
        if (ptrs[i])
            CK(cuMemFree(ptrs[i]));
    CK(cuModuleUnload(mod));
    CK(cuDevicePrimaryCtxRelease(dev));
    free(params);
    free(ptrs);
    free(ints);
    free(floats);
    free(ms);
    free(ptx);
    return 0;
}
