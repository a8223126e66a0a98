/* clvision bench/twin: kernels written once and compiled by both NVIDIA's
 * CUDA compiler (twin_cuda.cu includes this file) and its OpenCL driver
 * (twin_opencl.c loads it as OpenCL C source), so that the same code's
 * device time on the same GPU says how much of a gap to the memory floor is
 * the kernel's design and how much the OpenCL toolchain's. Not part of the
 * library; see bench/README.md. */
#ifdef __CUDACC__
#define KERNEL extern "C" __global__
#define GLOBAL
#define RESTRICT __restrict__
#define GX ((int)(blockIdx.x * blockDim.x + threadIdx.x))
#define GY ((int)(blockIdx.y * blockDim.y + threadIdx.y))
#define CLAMPI(v, a, b) min(max((v), (a)), (b))
typedef unsigned char uchar;
typedef unsigned int uint;
#else
#define KERNEL __kernel
#define GLOBAL __global
#define RESTRICT restrict
#define GX ((int)get_global_id(0))
#define GY ((int)get_global_id(1))
#define CLAMPI(v, a, b) clamp((v), (a), (b))
#endif

/* The floor: 16 bytes in, 16 bytes out per work-item. */
KERNEL void copy16(GLOBAL const uint4 *RESTRICT s, GLOBAL uint4 *RESTRICT d, int n)
{
    const int i = GX;
    if (i < n)
        d[i] = s[i];
}

/* 5x5 mean of u8, replicated border, rounded (2 acc + 25) / 50: one output
 * per work-item, 25 loads through the cache. */
KERNEL void box5_naive(GLOBAL const uchar *RESTRICT s, int pitch, int w, int h,
                       GLOBAL uchar *RESTRICT d)
{
    const int x = GX, y = GY;
    if (x >= w || y >= h)
        return;
    int acc = 0;
    for (int j = -2; j <= 2; j++) {
        GLOBAL const uchar *r = s + (size_t)CLAMPI(y + j, 0, h - 1) * pitch;
        for (int i = -2; i <= 2; i++)
            acc += r[CLAMPI(x + i, 0, w - 1)];
    }
    d[(size_t)y * pitch + x] = (uchar)((acc * 2 + 25) / 50);
}

/* The same in registers: 4 outputs across (one uint store) and TWIN_PY rows
 * down per work-item; each of the TWIN_PY + 4 source rows is three aligned
 * uint loads inside the image (bytes x - 4 .. x + 7), their 5-sums along x
 * kept, then 5 adds per output. Needs w % 4 == 0 and pitch % 4 == 0. */
#define TWIN_PY 8
KERNEL void box5_reg(GLOBAL const uchar *RESTRICT s, int pitch, int w, int h,
                     GLOBAL uchar *RESTRICT d)
{
    const int x4 = GX, yb = GY * TWIN_PY, x = x4 * 4;
    if (x >= w || yb >= h)
        return;
    int rs[TWIN_PY + 4][4];
    for (int j = 0; j < TWIN_PY + 4; j++) {
        GLOBAL const uchar *r = s + (size_t)CLAMPI(yb - 2 + j, 0, h - 1) * pitch;
        int v[12];
        if (x >= 4 && x + 8 <= w) {
            GLOBAL const uint *ru = (GLOBAL const uint *)r;
            const uint a = ru[x4 - 1], b = ru[x4], c = ru[x4 + 1];
            for (int k = 0; k < 4; k++) {
                v[k] = (a >> (8 * k)) & 255;
                v[4 + k] = (b >> (8 * k)) & 255;
                v[8 + k] = (c >> (8 * k)) & 255;
            }
        } else {
            for (int k = 0; k < 12; k++)
                v[k] = r[CLAMPI(x - 4 + k, 0, w - 1)];
        }
        for (int k = 0; k < 4; k++)
            rs[j][k] = v[k + 2] + v[k + 3] + v[k + 4] + v[k + 5] + v[k + 6];
    }
    for (int p = 0; p < TWIN_PY && yb + p < h; p++) {
        uint out = 0;
        for (int k = 0; k < 4; k++) {
            const int acc = rs[p][k] + rs[p + 1][k] + rs[p + 2][k] + rs[p + 3][k] + rs[p + 4][k];
            out |= (uint)((acc * 2 + 25) / 50) << (8 * k);
        }
        ((GLOBAL uint *)(d + (size_t)(yb + p) * pitch))[x4] = out;
    }
}
