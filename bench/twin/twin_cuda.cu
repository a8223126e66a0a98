/* bench/twin: the kernels of twin_kernels.h through CUDA, timed with CUDA
 * events (median of TWIN_REPS), results checked against the C reference. */
#include "twin_kernels.h"
extern "C" {
#include "twin_host.h"
}
#include <cuda_runtime.h>

#define CU_OK(x)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));                               \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

int main(void)
{
    const size_t n = (size_t)TWIN_W * TWIN_H;
    unsigned char *src = (unsigned char *)malloc(n), *box = (unsigned char *)malloc(n),
                  *got = (unsigned char *)malloc(n);
    if (!src || !box || !got)
        return 1;
    twin_data(src, box);
    unsigned char *s, *d;
    CU_OK(cudaMalloc(&s, n));
    CU_OK(cudaMalloc(&d, n));
    CU_OK(cudaMemcpy(s, src, n, cudaMemcpyHostToDevice));
    cudaDeviceProp prop;
    CU_OK(cudaGetDeviceProperties(&prop, 0));
    cudaEvent_t e0, e1;
    CU_OK(cudaEventCreate(&e0));
    CU_OK(cudaEventCreate(&e1));
    for (int k = 0; k < TWIN_NK; k++) {
        size_t g[2], l[2];
        twin_shape(k, g, l);
        const dim3 grid((unsigned)(g[0] / l[0]), (unsigned)(g[1] / l[1])),
            block((unsigned)l[0], (unsigned)l[1]);
        float us[TWIN_REPS];
        for (int r = 0; r < TWIN_REPS; r++) {
            CU_OK(cudaMemset(d, 0, n));
            CU_OK(cudaEventRecord(e0));
            if (k == 0)
                copy16<<<grid, block>>>((const uint4 *)s, (uint4 *)d, (int)(n / 16));
            else if (k == 1)
                box5_naive<<<grid, block>>>(s, TWIN_W, TWIN_W, TWIN_H, d);
            else
                box5_reg<<<grid, block>>>(s, TWIN_W, TWIN_W, TWIN_H, d);
            CU_OK(cudaGetLastError());
            CU_OK(cudaEventRecord(e1));
            CU_OK(cudaEventSynchronize(e1));
            float ms;
            CU_OK(cudaEventElapsedTime(&ms, e0, e1));
            us[r] = 1000.0f * ms;
        }
        CU_OK(cudaMemcpy(got, d, n, cudaMemcpyDeviceToHost));
        twin_report("cuda", prop.name, k, us, got, src, box);
    }
    CU_OK(cudaFree(s));
    CU_OK(cudaFree(d));
    free(src);
    free(box);
    free(got);
    return 0;
}
